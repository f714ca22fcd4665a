//! `--env-arg KEY=VALUE` values every environment reads the same way.

/// A boolean argument: `true`/`1`/`yes` or `false`/`0`/`no`, any case.
pub fn parse_bool(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Some(true),
        "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// `KEY=VALUE` split at the first `=`, both sides trimmed.
pub fn split_pair(pair: &str) -> Option<(&str, &str)> {
    pair.split_once('=').map(|(k, v)| (k.trim(), v.trim()))
}
