//! Reward configs: every constant of a reward profile is data (harness §1.3).
//!
//! Each environment ships `rewards/<alias>.toml` with one table per profile
//! (`[v1]`, `[upstream]`), compiled in. A user file of the same shape holding
//! only the keys to change overrides them; unknown tables or keys and values of
//! the wrong type are errors. The environment validates the typed result.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::canonical::canonical_sha256;

/// Errors loading or validating a reward config.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RewardConfigError {
    /// The TOML does not parse.
    #[error("reward config {origin}: invalid TOML: {message}")]
    Toml {
        /// Which file.
        origin: String,
        /// Parser message.
        message: String,
    },
    /// A table the environment does not have.
    #[error("reward config {origin}: unknown profile table [{table}] (known: {known})")]
    UnknownProfile {
        /// Which file.
        origin: String,
        /// The table name.
        table: String,
        /// Known tables.
        known: String,
    },
    /// A key the profile does not have.
    #[error("reward config {origin}: unknown key `{key}` in [{profile}] (known: {known})")]
    UnknownKey {
        /// Which file.
        origin: String,
        /// Profile table.
        profile: String,
        /// The key.
        key: String,
        /// Known keys.
        known: String,
    },
    /// A value of the wrong type.
    #[error("reward config {origin}: [{profile}] {key} must be {expected}")]
    WrongType {
        /// Which file.
        origin: String,
        /// Profile table.
        profile: String,
        /// The key.
        key: String,
        /// Expected type.
        expected: &'static str,
    },
    /// A value outside its allowed range, or violating a relation.
    #[error("reward config: invalid [{profile}] settings: {message}")]
    Invalid {
        /// Profile table.
        profile: String,
        /// What is wrong.
        message: String,
    },
    /// The environment has no such profile.
    #[error("unknown reward profile `{profile}` (this environment has: {known})")]
    NoSuchProfile {
        /// Requested profile.
        profile: String,
        /// Known profiles.
        known: String,
    },
}

/// The effective constants of one profile (defaults plus overrides).
pub type ProfileParams = BTreeMap<String, Value>;

fn parse_toml(text: &str, origin: &str) -> Result<toml::Table, RewardConfigError> {
    text.parse::<toml::Table>()
        .map_err(|e| RewardConfigError::Toml {
            origin: origin.to_string(),
            message: e.to_string(),
        })
}

fn toml_to_json(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => json!(*i),
        toml::Value::Float(f) => json!(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

/// Loads profile `profile` from the compiled-in `defaults` TOML and applies
/// `overrides` (the text of a user file, named `origin` in errors).
///
/// Integers given where the default is a float are accepted as floats.
pub fn load_profile(
    defaults: &str,
    profile: &str,
    overrides: Option<(&str, &str)>,
) -> Result<ProfileParams, RewardConfigError> {
    let defaults = parse_toml(defaults, "(built-in)")?;
    let known_profiles = defaults.keys().cloned().collect::<Vec<_>>().join(", ");
    let table = defaults
        .get(profile)
        .and_then(toml::Value::as_table)
        .ok_or_else(|| RewardConfigError::NoSuchProfile {
            profile: profile.to_string(),
            known: known_profiles.clone(),
        })?;
    let mut params: ProfileParams = table
        .iter()
        .map(|(k, v)| (k.clone(), toml_to_json(v)))
        .collect();

    if let Some((text, origin)) = overrides {
        let user = parse_toml(text, origin)?;
        for (name, value) in &user {
            let Some(default_table) = defaults.get(name).and_then(toml::Value::as_table) else {
                return Err(RewardConfigError::UnknownProfile {
                    origin: origin.to_string(),
                    table: name.clone(),
                    known: known_profiles,
                });
            };
            let Some(user_table) = value.as_table() else {
                return Err(RewardConfigError::UnknownProfile {
                    origin: origin.to_string(),
                    table: name.clone(),
                    known: known_profiles,
                });
            };
            for (key, v) in user_table {
                let Some(default) = default_table.get(key) else {
                    return Err(RewardConfigError::UnknownKey {
                        origin: origin.to_string(),
                        profile: name.clone(),
                        key: key.clone(),
                        known: default_table.keys().cloned().collect::<Vec<_>>().join(", "),
                    });
                };
                let converted = match (default, v) {
                    (toml::Value::Float(_), toml::Value::Float(f)) => json!(*f),
                    (toml::Value::Float(_), toml::Value::Integer(i)) => json!(*i as f64),
                    (toml::Value::Integer(_), toml::Value::Integer(i)) => json!(*i),
                    (toml::Value::Boolean(_), toml::Value::Boolean(b)) => json!(*b),
                    (toml::Value::String(_), toml::Value::String(s)) => json!(s),
                    (d, _) => {
                        return Err(RewardConfigError::WrongType {
                            origin: origin.to_string(),
                            profile: name.clone(),
                            key: key.clone(),
                            expected: match d {
                                toml::Value::Float(_) => "a number",
                                toml::Value::Integer(_) => "an integer",
                                toml::Value::Boolean(_) => "a boolean",
                                toml::Value::String(_) => "a string",
                                _ => "a value of the default's type",
                            },
                        })
                    }
                };
                if name == profile {
                    params.insert(key.clone(), converted);
                }
            }
        }
    }
    Ok(params)
}

/// Reads a float parameter that [`load_profile`] guaranteed to exist.
pub fn param_f64(
    params: &ProfileParams,
    profile: &str,
    key: &str,
) -> Result<f64, RewardConfigError> {
    params
        .get(key)
        .and_then(Value::as_f64)
        .ok_or_else(|| RewardConfigError::Invalid {
            profile: profile.to_string(),
            message: format!("missing numeric key `{key}`"),
        })
}

/// Reads a profile's constants into `T`, a `#[derive(Deserialize)]` struct
/// whose fields are the table's keys (the environment validates the values).
///
/// # Errors
/// [`RewardConfigError::Invalid`] when a field is missing or of another type
/// (a built-in table that does not match its struct).
pub fn read_params<T: serde::de::DeserializeOwned>(
    params: &ProfileParams,
    profile: &str,
) -> Result<T, RewardConfigError> {
    let table: serde_json::Map<String, Value> =
        params.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    serde_json::from_value(Value::Object(table)).map_err(|e| RewardConfigError::Invalid {
        profile: profile.to_string(),
        message: e.to_string(),
    })
}

/// `reward_config_hash`: `sha256:` + SHA-256 of canonical
/// `{environment, profile, reward_impl_version, components:[{name, weight}], params}`.
pub fn reward_config_hash(
    environment: &str,
    profile: &str,
    reward_impl_version: u32,
    components: &[(&str, f64)],
    params: &ProfileParams,
) -> String {
    let value = json!({
        "environment": environment,
        "profile": profile,
        "reward_impl_version": reward_impl_version,
        "components": components
            .iter()
            .map(|(n, w)| json!({"name": n, "weight": w}))
            .collect::<Vec<_>>(),
        "params": params,
    });
    format!("sha256:{}", canonical_sha256(&value))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULTS: &str = "[v1]\ncost_fp = 0.25\ncost_fn = 1.0\n\n[upstream]\n";

    #[test]
    fn overrides_apply_and_integers_widen() {
        let p = load_profile(DEFAULTS, "v1", Some(("[v1]\ncost_fn = 2\n", "f.toml"))).unwrap();
        assert_eq!(p["cost_fn"], json!(2.0));
        assert_eq!(p["cost_fp"], json!(0.25));
    }

    #[test]
    fn unknown_keys_tables_and_types_are_errors() {
        assert!(matches!(
            load_profile(DEFAULTS, "v1", Some(("[v1]\ncost_xx = 1.0\n", "f"))),
            Err(RewardConfigError::UnknownKey { .. })
        ));
        assert!(matches!(
            load_profile(DEFAULTS, "v1", Some(("[v2]\ncost_fp = 1.0\n", "f"))),
            Err(RewardConfigError::UnknownProfile { .. })
        ));
        assert!(matches!(
            load_profile(DEFAULTS, "v1", Some(("[v1]\ncost_fp = \"x\"\n", "f"))),
            Err(RewardConfigError::WrongType { .. })
        ));
        assert!(matches!(
            load_profile(DEFAULTS, "v9", None),
            Err(RewardConfigError::NoSuchProfile { .. })
        ));
    }

    #[test]
    fn params_read_into_a_struct_and_mismatches_are_invalid() {
        #[derive(serde::Deserialize)]
        struct V1 {
            cost_fp: f64,
            cost_fn: f64,
        }
        let p = load_profile(DEFAULTS, "v1", Some(("[v1]\ncost_fn = 2\n", "f"))).unwrap();
        let v1: V1 = read_params(&p, "v1").unwrap();
        assert_eq!((v1.cost_fp, v1.cost_fn), (0.25, 2.0));
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Missing {
            cost_xx: f64,
        }
        assert!(matches!(
            read_params::<Missing>(&p, "v1"),
            Err(RewardConfigError::Invalid { .. })
        ));
    }

    #[test]
    fn hash_depends_on_params() {
        let a = load_profile(DEFAULTS, "v1", None).unwrap();
        let b = load_profile(DEFAULTS, "v1", Some(("[v1]\ncost_fp = 0.5\n", "f"))).unwrap();
        let h = |p| reward_config_hash("e", "v1", 1, &[("utility", 1.0)], p);
        assert_ne!(h(&a), h(&b));
        assert!(h(&a).starts_with("sha256:"));
    }
}
