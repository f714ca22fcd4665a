//! What every environment's dataset loader shares: the `--dataset` spec and
//! the provenance of selected rows.

use std::path::PathBuf;

use svbench_core::example::DatasetError;

/// Where rows come from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DatasetSpec {
    /// The compiled-in default set.
    Embedded,
    /// A JSONL file in the environment's (or upstream's) row format.
    File(PathBuf),
    /// `synthetic:SEED:N`: N rows of the selected split from the seeded generator.
    Synthetic {
        /// Generator seed.
        seed: u64,
        /// Rows.
        n: usize,
    },
}

impl DatasetSpec {
    /// Parses `embedded`, `embedded:default`, `synthetic:SEED:N` or a path.
    ///
    /// # Errors
    /// Unknown embedded names and malformed `synthetic:` specs.
    pub fn parse(spec: &str) -> Result<Self, DatasetError> {
        if spec == "embedded" || spec == "embedded:default" {
            return Ok(DatasetSpec::Embedded);
        }
        if let Some(name) = spec.strip_prefix("embedded:") {
            return Err(DatasetError::Selection(format!(
                "unknown embedded dataset `{name}` (available: default)"
            )));
        }
        if let Some(rest) = spec.strip_prefix("synthetic:") {
            let parts: Vec<&str> = rest.split(':').collect();
            let parsed = match parts.as_slice() {
                [seed, n] => seed.parse::<u64>().ok().zip(n.parse::<usize>().ok()),
                _ => None,
            };
            return match parsed {
                Some((seed, n)) if n > 0 => Ok(DatasetSpec::Synthetic { seed, n }),
                _ => Err(DatasetError::Selection(format!(
                    "bad dataset spec `{spec}`: expected synthetic:SEED:N with integers, N > 0"
                ))),
            };
        }
        Ok(DatasetSpec::File(PathBuf::from(spec)))
    }
}

/// Where selected rows came from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DataProvenance {
    /// The split loaded (`all` when rows carry none or all were requested).
    pub split: String,
    /// Rows in the split before selection.
    pub split_rows: usize,
    /// Canonical hash of the split's rows in source order.
    pub dataset_sha256: String,
    /// Canonical hash of the selected rows in evaluation order.
    pub selected_sha256: String,
    /// SHA-256 of the file bytes (files only).
    pub file_sha256: Option<String>,
    /// Loader warnings.
    pub warnings: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_are_refused() {
        assert_eq!(
            DatasetSpec::parse("embedded").unwrap(),
            DatasetSpec::Embedded
        );
        assert_eq!(
            DatasetSpec::parse("embedded:default").unwrap(),
            DatasetSpec::Embedded
        );
        assert_eq!(
            DatasetSpec::parse("synthetic:7:3").unwrap(),
            DatasetSpec::Synthetic { seed: 7, n: 3 }
        );
        assert_eq!(
            DatasetSpec::parse("rows.jsonl").unwrap(),
            DatasetSpec::File(PathBuf::from("rows.jsonl"))
        );
        for bad in [
            "embedded:big",
            "synthetic:7",
            "synthetic:7:0",
            "synthetic:x:3",
        ] {
            assert!(
                matches!(DatasetSpec::parse(bad), Err(DatasetError::Selection(_))),
                "{bad}"
            );
        }
    }
}
