//! Violation id normalisation (spec E2 §3.4) against the rule catalogues.
//!
//! A [`Catalogue`] knows every rule of the three namespaces (kube-linter
//! checks of every tier, the semgrep rules, the opa rules) with its project
//! severity. [`Catalogue::normalize`] turns an id as a model wrote it into a
//! [`NormalizedId`]; [`Catalogue::severity`] gives the catalogue severity
//! that `v1` rewards weight ids with. Building the opa part evaluates the
//! Rego policies (~150 ms), so build a catalogue once:
//! [`Catalogue::builtin`] is a process-wide one for the built-in policies,
//! [`Catalogue::with_opa`] one for a loaded [`Opa`] with user policies.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

use svbench_scan::opa::Opa;
use svbench_scan::{kube_linter, semgrep};

use super::{NormalizedId, Severity, Tool};

/// The prefix of semgrep's Kubernetes rule ids; the full id is
/// `yaml.kubernetes.security.<r>.<r>`.
const SEMGREP_K8S_PREFIX: &str = "yaml.kubernetes.security.";

/// Every known rule of the three namespaces, with the spellings §3.4 accepts.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    /// Canonical `(tool, rule)` → catalogue severity.
    severities: BTreeMap<(Tool, String), Severity>,
    /// Per namespace: lower-case accepted spelling → canonical rules it names.
    spellings: HashMap<Tool, HashMap<String, BTreeSet<String>>>,
}

impl Catalogue {
    /// The catalogue of the built-in rules: every kube-linter check (all
    /// tiers), the semgrep rules and the built-in opa policies. Built once
    /// per process on first use.
    #[must_use]
    pub fn builtin() -> &'static Catalogue {
        static BUILTIN: OnceLock<Catalogue> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            // The embedded policies are compiled into the binary and tested
            // to load; a failure here is a build defect, not bad input.
            let opa = Opa::builtin().expect("the embedded opa policies load");
            Catalogue::with_opa(&opa)
        })
    }

    /// The kube-linter and semgrep catalogues plus the rules of `opa`
    /// (built-in ones and those registered by loaded user policies).
    #[must_use]
    pub fn with_opa(opa: &Opa) -> Catalogue {
        let static_rules = kube_linter::catalogue()
            .iter()
            .chain(semgrep::catalogue())
            .map(|r| (r.tool, r.id.to_owned(), r.severity));
        let opa_rules = opa
            .rules()
            .into_iter()
            .map(|r| (Tool::Opa, r.id, r.severity));
        Catalogue::from_rules(static_rules.chain(opa_rules))
    }

    /// A catalogue of exactly these `(namespace, rule id, severity)` rules;
    /// a repeated rule keeps its last severity.
    #[must_use]
    pub fn from_rules(rules: impl IntoIterator<Item = (Tool, String, Severity)>) -> Catalogue {
        let mut catalogue = Catalogue::default();
        for (tool, rule, severity) in rules {
            let names = catalogue.spellings.entry(tool).or_default();
            for spelling in accepted_spellings(tool, &rule) {
                names.entry(spelling).or_default().insert(rule.clone());
            }
            catalogue.severities.insert((tool, rule), severity);
        }
        catalogue
    }

    /// Normalises an id as written (spec E2 §3.4):
    ///
    /// 1. Trimmed, surrounding quotes and backticks removed. With a `/`, the
    ///    part before the first one names the namespace case-insensitively
    ///    (`kube-linter`, `kubelinter`, `kube_linter`, `run_kubelinter`;
    ///    `semgrep`, `run_semgrep`; `opa`, `run_opa`, `rego`); any other
    ///    prefix gives [`NormalizedId::Unresolved`].
    /// 2. The rule part (trimmed) is matched case-insensitively against the
    ///    namespace's catalogue and rewritten to catalogue spelling; semgrep
    ///    rules also answer to `yaml.kubernetes.security.<r>` and `<r>`. A
    ///    rule the catalogue does not know keeps its text.
    /// 3. A bare id resolves only if exactly one namespace knows it; zero or
    ///    several (`run-as-non-root`, `privileged-container`) leave it
    ///    unresolved.
    ///
    /// Unresolved ids carry the trimmed, unquoted text.
    #[must_use]
    pub fn normalize(&self, id: &str) -> NormalizedId {
        let text = unquote(id);
        let Some((prefix, rule)) = text.split_once('/') else {
            return self.resolve_bare(text);
        };
        let Some(tool) = namespace_alias(prefix.trim()) else {
            return NormalizedId::Unresolved(text.to_owned());
        };
        let rule = rule.trim();
        let rule = match self.lookup(tool, rule) {
            Some(canonical) => canonical.to_owned(),
            None => rule.to_owned(),
        };
        NormalizedId::Resolved { tool, rule }
    }

    /// The catalogue severity of `rule` (in catalogue spelling, as
    /// [`Catalogue::normalize`] produces it) in namespace `tool`; `None` for
    /// rules the catalogue does not know.
    #[must_use]
    pub fn severity(&self, tool: Tool, rule: &str) -> Option<Severity> {
        self.severities.get(&(tool, rule.to_owned())).copied()
    }

    /// The severity an id weighs with in `v1` rewards (spec E2 §5.2): the
    /// catalogue severity of a known resolved id, else med.
    #[must_use]
    pub fn weight_severity(&self, id: &NormalizedId) -> Severity {
        match id {
            NormalizedId::Resolved { tool, rule } => {
                self.severity(*tool, rule).unwrap_or(Severity::Med)
            }
            NormalizedId::Unresolved(_) => Severity::Med,
        }
    }

    /// The full id: `tool/rule` for a resolved id, the text for an
    /// unresolved one (same as [`NormalizedId::full_id`]).
    #[must_use]
    pub fn full_id(&self, id: &NormalizedId) -> String {
        id.full_id()
    }

    /// The rules of namespace `tool` in catalogue spelling, sorted, with
    /// their severities (e.g. for the prompt's catalogue listing).
    pub fn rules(&self, tool: Tool) -> impl Iterator<Item = (&str, Severity)> + '_ {
        self.severities
            .iter()
            .filter(move |((t, _), _)| *t == tool)
            .map(|((_, r), s)| (r.as_str(), *s))
    }

    /// The catalogue spelling of `rule` in `tool` if exactly one rule
    /// answers to it.
    fn lookup(&self, tool: Tool, rule: &str) -> Option<&str> {
        let names = self.spellings.get(&tool)?.get(&rule.to_ascii_lowercase())?;
        match names.len() {
            1 => names.iter().next().map(String::as_str),
            _ => None,
        }
    }

    fn resolve_bare(&self, text: &str) -> NormalizedId {
        let lower = text.to_ascii_lowercase();
        let mut found = Tool::ALL.into_iter().filter(|tool| {
            self.spellings
                .get(tool)
                .is_some_and(|names| names.contains_key(&lower))
        });
        match (found.next(), found.next()) {
            (Some(tool), None) => match self.lookup(tool, text) {
                Some(rule) => NormalizedId::Resolved {
                    tool,
                    rule: rule.to_owned(),
                },
                // Several rules of one namespace answer to it.
                None => NormalizedId::Unresolved(text.to_owned()),
            },
            _ => NormalizedId::Unresolved(text.to_owned()),
        }
    }
}

impl NormalizedId {
    /// The full id: `tool/rule` when resolved, the text when unresolved.
    #[must_use]
    pub fn full_id(&self) -> String {
        match self {
            NormalizedId::Resolved { tool, rule } => format!("{}/{rule}", tool.as_str()),
            NormalizedId::Unresolved(text) => text.clone(),
        }
    }

    /// The namespace, when resolved.
    #[must_use]
    pub fn tool(&self) -> Option<Tool> {
        match self {
            NormalizedId::Resolved { tool, .. } => Some(*tool),
            NormalizedId::Unresolved(_) => None,
        }
    }
}

/// The namespace a prefix names (spec E2 §3.4 step 1), case-insensitively.
#[must_use]
pub fn namespace_alias(prefix: &str) -> Option<Tool> {
    match prefix.to_ascii_lowercase().as_str() {
        "kube-linter" | "kubelinter" | "kube_linter" | "run_kubelinter" => Some(Tool::KubeLinter),
        "semgrep" | "run_semgrep" => Some(Tool::Semgrep),
        "opa" | "run_opa" | "rego" => Some(Tool::Opa),
        _ => None,
    }
}

/// Trims, then strips surrounding quotes and backticks (and the whitespace
/// they enclosed).
fn unquote(id: &str) -> &str {
    id.trim()
        .trim_matches(|c| matches!(c, '"' | '\'' | '`'))
        .trim()
}

/// The lower-case spellings a rule answers to: its id, and for semgrep's
/// `yaml.kubernetes.security.<r>.<r>` also `yaml.kubernetes.security.<r>`
/// and `<r>`.
fn accepted_spellings(tool: Tool, rule: &str) -> Vec<String> {
    let lower = rule.to_ascii_lowercase();
    let mut out = vec![lower.clone()];
    if tool == Tool::Semgrep {
        if let Some(rest) = lower.strip_prefix(SEMGREP_K8S_PREFIX) {
            if let Some((short, last)) = rest.split_once('.') {
                if short == last {
                    out.push(format!("{SEMGREP_K8S_PREFIX}{short}"));
                    out.push(short.to_owned());
                }
            }
        }
    }
    out
}
