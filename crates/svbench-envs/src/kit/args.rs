//! `--env-arg KEY=VALUE` values every environment reads the same way.

/// A boolean argument: `true`/`1`/`yes` or `false`/`0`/`no`, any case.
pub fn parse_bool(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Some(true),
        "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// `KEY=VALUE` split at the first `=`. The key is taken exactly as written
/// (a key padded with whitespace is not the key it resembles, so it is an
/// unknown argument rather than a quiet alias that checks keyed on the exact
/// name would miss); the value is trimmed.
pub fn split_pair(pair: &str) -> Option<(&str, &str)> {
    pair.split_once('=').map(|(k, v)| (k, v.trim()))
}

#[cfg(test)]
mod tests {
    use super::split_pair;

    #[test]
    fn keys_are_exact_and_values_trimmed() {
        assert_eq!(split_pair("lang=k8s"), Some(("lang", "k8s")));
        assert_eq!(split_pair("lang= k8s \t"), Some(("lang", "k8s")));
        assert_eq!(split_pair("a=b=c"), Some(("a", "b=c")));
        assert_eq!(split_pair("novalue"), None);
        for padded in [
            "policy_dirs =x",
            " policy_dirs=x",
            "\tpolicy_dirs=x",
            "policy_dirs\n=x",
            "\u{a0}policy_dirs=x",
            "policy_dirs\u{2003}=x",
            "\u{feff}policy_dirs=x",
        ] {
            let (key, _) = split_pair(padded).expect("a pair");
            assert_ne!(key, "policy_dirs", "{padded:?} was read as policy_dirs");
        }
    }
}
