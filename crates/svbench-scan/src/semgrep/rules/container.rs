//! Rules about one container item: writable root filesystem, missing
//! `allowPrivilegeEscalation`, privileged mode (case a).
//!
//! Like the registry rules, they only look at items that carry an `image`
//! (and, for two of them, a `name`): a mapping without them under
//! `containers` is not a container the rule can speak about.

use super::is_true;
use crate::semgrep::rule::Rule;
use crate::Node;

/// The rules that fire on `item`, with their reported lines.
pub(super) fn check_item(item: &Node) -> Vec<(Rule, usize)> {
    let mut found = Vec::new();
    let name = item.get("name");
    let has_image = item.get("image").is_some();
    let security_context = item.get_pair("securityContext");
    let sc_field = |field: &str| security_context.and_then(|(_, sc)| sc.get(field));

    if let (Some(name), true) = (name, has_image) {
        // Reported at the `name` value, where the registry rule focuses.
        if !is_true(sc_field("readOnlyRootFilesystem")) {
            found.push((Rule::WritableFilesystemContainer, name.line));
        }
        // Only an existing securityContext lacking the key fires; any value
        // of the key (even `true`) counts as set.
        if let Some((sc_key, _)) = security_context {
            if sc_field("allowPrivilegeEscalation").is_none() {
                found.push((Rule::AllowPrivilegeEscalation, sc_key.line));
            }
        }
    }
    // Reported at the item's first line: the whole item is the match.
    if has_image && is_true(sc_field("privileged")) {
        found.push((Rule::PrivilegedContainer, item.line));
    }
    found
}
