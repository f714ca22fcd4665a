//! `svbench data import ENV --format FMT …` and `svbench data inspect`: what
//! an environment declares to import. Each importer declares its own flags
//! (name, value kind, help, the formats that read them); the CLI builds its
//! options from these declarations, [`ImporterEntry::flags`] refuses a flag
//! the importer or the format does not read, and the importer parses the
//! typed values once. Nothing is defaulted silently: a default is declared
//! beside its flag and shown in help.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// What kind of value a flag takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagKind {
    /// Free text, read by the importer.
    Text,
    /// A file (or directory) on this machine.
    Path,
    /// A whole number.
    Count,
    /// No value: present or not.
    Switch,
}

impl FlagKind {
    /// What the value is, for messages.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Self::Text => "a text value",
            Self::Path => "a path",
            Self::Count => "a whole number",
            Self::Switch => "no value",
        }
    }
}

/// Which of an importer's formats read a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepts {
    /// Every format of the importer.
    Every,
    /// Only these formats.
    Only(&'static [&'static str]),
}

/// One flag an importer reads, as `data import` offers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportFlag {
    /// The long name without `--`, e.g. `text-col`.
    pub name: &'static str,
    /// Its value.
    pub kind: FlagKind,
    /// One line on what it does (the formats and default are added in help).
    pub help: &'static str,
    /// The formats that read it.
    pub accepts: Accepts,
    /// The value used when the flag is not given, if any.
    pub default: Option<&'static str>,
}

impl ImportFlag {
    /// Whether `format` reads this flag.
    #[must_use]
    pub fn accepts(&self, format: &str) -> bool {
        match self.accepts {
            Accepts::Every => true,
            Accepts::Only(formats) => formats.contains(&format),
        }
    }
}

/// A flag's value, typed by its [`FlagKind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlagValue {
    /// [`FlagKind::Text`].
    Text(String),
    /// [`FlagKind::Path`].
    Path(PathBuf),
    /// [`FlagKind::Count`].
    Count(u64),
    /// [`FlagKind::Switch`], given.
    Switch,
}

impl FlagValue {
    /// Parses a command-line value of flag `name` of `kind` (a switch takes
    /// no value: any text means it was given).
    ///
    /// # Errors
    /// [`ImportFailure::Usage`] for a count that is not a whole number.
    pub fn parse(name: &str, kind: FlagKind, raw: &str) -> Result<Self, ImportFailure> {
        Ok(match kind {
            FlagKind::Text => Self::Text(raw.to_string()),
            FlagKind::Path => Self::Path(PathBuf::from(raw)),
            FlagKind::Switch => Self::Switch,
            FlagKind::Count => Self::Count(raw.parse().map_err(|_| {
                ImportFailure::Usage(format!("--{name} `{raw}`: expected a whole number"))
            })?),
        })
    }

    fn kind(&self) -> FlagKind {
        match self {
            Self::Text(_) => FlagKind::Text,
            Self::Path(_) => FlagKind::Path,
            Self::Count(_) => FlagKind::Count,
            Self::Switch => FlagKind::Switch,
        }
    }
}

/// The flags of one import, checked against the importer's declarations,
/// declared defaults filled in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportFlags {
    format: String,
    values: BTreeMap<&'static str, FlagValue>,
}

impl ImportFlags {
    /// `--format`.
    #[must_use]
    pub fn format(&self) -> &str {
        &self.format
    }

    /// A text flag's value.
    #[must_use]
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.values.get(name) {
            Some(FlagValue::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// A path flag's value.
    #[must_use]
    pub fn path(&self, name: &str) -> Option<&Path> {
        match self.values.get(name) {
            Some(FlagValue::Path(p)) => Some(p),
            _ => None,
        }
    }

    /// A count flag's value.
    #[must_use]
    pub fn count(&self, name: &str) -> Option<u64> {
        match self.values.get(name) {
            Some(FlagValue::Count(n)) => Some(*n),
            _ => None,
        }
    }

    /// Whether a switch was given.
    #[must_use]
    pub fn switch(&self, name: &str) -> bool {
        matches!(self.values.get(name), Some(FlagValue::Switch))
    }

    /// A text flag that has a declared default (so it always has a value).
    ///
    /// # Errors
    /// [`ImportFailure::Usage`] when it has none.
    pub fn required_text(&self, name: &str) -> Result<&str, ImportFailure> {
        self.text(name)
            .ok_or_else(|| ImportFailure::Usage(format!("--{name} is required")))
    }

    /// A count flag that has a declared default (so it always has a value).
    ///
    /// # Errors
    /// [`ImportFailure::Usage`] when it has none.
    pub fn required_count(&self, name: &str) -> Result<u64, ImportFailure> {
        self.count(name)
            .ok_or_else(|| ImportFailure::Usage(format!("--{name} is required")))
    }
}

/// What an import produced: the rows, and lines for stderr (counts of what
/// was dropped, and why).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportReport {
    /// Rows in the environment's format, in input order.
    pub rows: Vec<Value>,
    /// Summary lines.
    pub notes: Vec<String>,
}

/// Why an import failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportFailure {
    /// Flags missing, conflicting or malformed (a usage error).
    #[error("{0}")]
    Usage(String),
    /// The input does not convert (a data error).
    #[error("{0}")]
    Data(String),
}

/// Converts input files with the given flags.
pub type RunImport = fn(&[PathBuf], &ImportFlags) -> Result<ImportReport, ImportFailure>;

/// Summarises a table and suggests import flags.
pub type InspectTable = fn(&Path) -> Result<String, ImportFailure>;

/// An environment's importers.
#[derive(Debug, Clone, Copy)]
pub struct ImporterEntry {
    /// `--format` values, with one line each on what they read.
    pub formats: &'static [(&'static str, &'static str)],
    /// Every flag the importer reads, in the order help lists them.
    pub flags: &'static [ImportFlag],
    /// Converts the inputs.
    pub run: RunImport,
    /// `data inspect`: a summary of a file with suggested flags, if the
    /// environment imports tables.
    pub inspect: Option<InspectTable>,
}

impl ImporterEntry {
    /// The declared flag `name`.
    #[must_use]
    pub fn flag(&self, name: &str) -> Option<&'static ImportFlag> {
        self.flags.iter().find(|f| f.name == name)
    }

    /// Checks the flags given for `format` of environment `env` (its short
    /// id, for messages) and fills in declared defaults.
    ///
    /// # Errors
    /// [`ImportFailure::Usage`] for an unknown format, a flag this importer
    /// does not declare, a flag `format` does not read, a value of the wrong
    /// kind or a default that does not parse.
    pub fn flags(
        &self,
        env: &str,
        format: &str,
        given: Vec<(String, FlagValue)>,
    ) -> Result<ImportFlags, ImportFailure> {
        if !self.formats.iter().any(|(f, _)| *f == format) {
            return Err(ImportFailure::Usage(format!(
                "--format `{format}` is not one {env} imports (formats: {})",
                self.format_names().join(", ")
            )));
        }
        let mut values = BTreeMap::new();
        for (name, value) in given {
            let flag = self.flag(&name).ok_or_else(|| {
                ImportFailure::Usage(format!(
                    "--{name} is not a flag of {env}'s importer ({env} reads: {})",
                    self.flags
                        .iter()
                        .map(|f| format!("--{}", f.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
            if let Accepts::Only(formats) = flag.accepts {
                if !flag.accepts(format) {
                    return Err(ImportFailure::Usage(format!(
                        "--{name} applies to --format {} only",
                        and_list(formats)
                    )));
                }
            }
            if value.kind() != flag.kind {
                return Err(ImportFailure::Usage(format!(
                    "--{name} takes {}",
                    flag.kind.describe()
                )));
            }
            values.insert(flag.name, value);
        }
        for flag in self.flags.iter().filter(|f| f.accepts(format)) {
            if let (Some(default), false) = (flag.default, values.contains_key(flag.name)) {
                values.insert(flag.name, FlagValue::parse(flag.name, flag.kind, default)?);
            }
        }
        Ok(ImportFlags {
            format: format.to_string(),
            values,
        })
    }

    /// The `--format` names.
    #[must_use]
    pub fn format_names(&self) -> Vec<&'static str> {
        self.formats.iter().map(|(f, _)| *f).collect()
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Parses `--split-ratios`: three non-negative shares of train, dev and
/// test that sum to 1.
///
/// # Errors
/// [`ImportFailure::Usage`] naming the value.
pub fn parse_ratios(s: &str) -> Result<[f64; 3], ImportFailure> {
    let parts: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| {
            ImportFailure::Usage(format!(
                "--split-ratios `{s}`: expected three numbers like 0.7,0.15,0.15"
            ))
        })?;
    match parts.as_slice() {
        [a, b, c]
            if parts.iter().all(|x| x.is_finite() && *x >= 0.0)
                && ((a + b + c) - 1.0).abs() < 1e-6 =>
        {
            Ok([*a, *b, *c])
        }
        _ => Err(ImportFailure::Usage(format!(
            "--split-ratios `{s}`: need three non-negative shares of train,dev,test summing to 1"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(_: &[PathBuf], _: &ImportFlags) -> Result<ImportReport, ImportFailure> {
        Ok(ImportReport::default())
    }

    static TEST: ImporterEntry = ImporterEntry {
        formats: &[("csv", ""), ("jsonl", ""), ("eml", "")],
        flags: &[
            ImportFlag {
                name: "text-col",
                kind: FlagKind::Text,
                help: "",
                accepts: Accepts::Only(&["csv", "jsonl"]),
                default: None,
            },
            ImportFlag {
                name: "seed",
                kind: FlagKind::Count,
                help: "",
                accepts: Accepts::Every,
                default: Some("42"),
            },
        ],
        run,
        inspect: None,
    };

    #[test]
    fn flags_are_checked_against_the_declarations_and_defaults_filled() {
        let given = |name: &str, v: FlagValue| vec![(name.to_string(), v)];
        let f = TEST
            .flags("t", "csv", given("text-col", FlagValue::Text("x".into())))
            .unwrap();
        assert_eq!((f.text("text-col"), f.count("seed")), (Some("x"), Some(42)));
        assert_eq!(
            TEST.flags("t", "eml", given("text-col", FlagValue::Text("x".into()))),
            Err(ImportFailure::Usage(
                "--text-col applies to --format csv and jsonl only".into()
            ))
        );
        let unknown = TEST.flags("t", "csv", given("device", FlagValue::Text("x".into())));
        assert_eq!(
            unknown,
            Err(ImportFailure::Usage(
                "--device is not a flag of t's importer (t reads: --text-col, --seed)".into()
            ))
        );
        assert!(TEST.flags("t", "zeek", Vec::new()).is_err());
        assert!(TEST
            .flags("t", "csv", given("seed", FlagValue::Text("1".into())))
            .is_err());
    }

    #[test]
    fn ratios_parse_or_say_what_is_expected() {
        assert_eq!(parse_ratios("0.7,0.15,0.15"), Ok([0.7, 0.15, 0.15]));
        assert!(parse_ratios("0.5,0.5").is_err());
        assert!(parse_ratios("a,b,c").is_err());
    }
}
