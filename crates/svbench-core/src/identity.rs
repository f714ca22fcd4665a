//! Which environments exist and how they are named.
//!
//! This is the one table of environment names and aliases. It lives in the
//! shared vocabulary because the report (which never depends on the
//! environments' code) resolves names from recorded runs too; everything an
//! environment *does* is declared by its entry in `svbench-envs`' registry,
//! which points at its identity here.

/// An environment's names.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct EnvIdentity {
    /// Canonical name (`sv-env-network-logs`), recorded as `environment`.
    pub name: &'static str,
    /// Short id (`e1`): file names, scoreboards, config ids.
    pub short: &'static str,
    /// Descriptive alias (`network-logs`).
    pub alias: &'static str,
    /// Every profile scores by executing checks (parsers, cost matrices,
    /// analyzers, tests, indicator matching) rather than a judge whose kind
    /// depends on its configuration.
    pub executable_reward: bool,
}

impl EnvIdentity {
    /// Every accepted spelling, canonical name first.
    #[must_use]
    pub fn spellings(&self) -> [&'static str; 3] {
        [self.name, self.short, self.alias]
    }

    /// Whether `name` is one of this environment's spellings (exact).
    #[must_use]
    pub fn is_named(&self, name: &str) -> bool {
        self.spellings().contains(&name)
    }

    /// The other spellings (short id, alias), as catalogues list them.
    #[must_use]
    pub fn aliases(&self) -> [&'static str; 2] {
        [self.short, self.alias]
    }
}

/// E1: network-log triage.
pub const NETWORK_LOGS: EnvIdentity = EnvIdentity {
    name: "sv-env-network-logs",
    short: "e1",
    alias: "network-logs",
    executable_reward: true,
};

/// E2: Kubernetes / Terraform auditing with verified patches.
pub const CONFIG_VERIFICATION: EnvIdentity = EnvIdentity {
    name: "sv-env-config-verification",
    short: "e2",
    alias: "config-verification",
    executable_reward: true,
};

/// E3: vulnerable-code repair.
pub const CODE_VULNERABILITY: EnvIdentity = EnvIdentity {
    name: "sv-env-code-vulnerability",
    short: "e3",
    alias: "code-vulnerability",
    executable_reward: true,
};

/// E4: phishing triage.
pub const PHISHING_DETECTION: EnvIdentity = EnvIdentity {
    name: "sv-env-phishing-detection",
    short: "e4",
    alias: "phishing-detection",
    executable_reward: true,
};

/// E5: red-team attack (a safety judge scores it).
pub const REDTEAM_ATTACK: EnvIdentity = EnvIdentity {
    name: "sv-env-redteam-attack",
    short: "e5",
    alias: "redteam-attack",
    executable_reward: false,
};

/// E6: red-team defence (a safety judge scores it).
pub const REDTEAM_DEFENSE: EnvIdentity = EnvIdentity {
    name: "sv-env-redteam-defense",
    short: "e6",
    alias: "redteam-defense",
    executable_reward: false,
};

/// Every environment of the benchmark, built or planned, in order.
pub const ALL: [&EnvIdentity; 6] = [
    &NETWORK_LOGS,
    &CONFIG_VERIFICATION,
    &CODE_VULNERABILITY,
    &PHISHING_DETECTION,
    &REDTEAM_ATTACK,
    &REDTEAM_DEFENSE,
];

/// The environment `name` spells exactly (canonical name, short id or alias).
#[must_use]
pub fn lookup(name: &str) -> Option<&'static EnvIdentity> {
    ALL.into_iter().find(|id| id.is_named(name))
}

/// As [`lookup`], ignoring ASCII case and surrounding whitespace (for names
/// read back from files other tools wrote).
#[must_use]
pub fn lookup_loose(name: &str) -> Option<&'static EnvIdentity> {
    let lower = name.trim().to_ascii_lowercase();
    lookup(&lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_is_unique_and_resolves_to_its_environment() {
        let mut seen = std::collections::HashSet::new();
        for id in ALL {
            for s in id.spellings() {
                assert!(seen.insert(s), "`{s}` names two environments");
                assert_eq!(lookup(s), Some(id));
            }
        }
        assert_eq!(lookup("E1"), None);
        assert_eq!(lookup_loose(" E1 "), Some(&NETWORK_LOGS));
        assert_eq!(lookup("e7"), None);
    }
}
