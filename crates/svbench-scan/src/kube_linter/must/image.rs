//! Image hygiene: a mutable tag makes deployments unreproducible and lets a
//! registry push change what runs.

use std::sync::LazyLock;

use regex::Regex;

use crate::k8s::K8sObject;
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::per_container_at;

/// kube-linter's default block list (unanchored searches): `:latest`, no tag
/// at all, and a last path segment without a tag (`host:5000/app`). An image
/// ending in a digest never matches any of them.
static BLOCKED: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [".*:(latest)$", "^[^:]*$", "(.*/[^:]+)$"]
        .iter()
        .map(|r| Regex::new(r).expect("literal regex is valid"))
        .collect()
});

/// `latest-tag`: the image is untagged, `:latest`, or empty; reported at the
/// `image:` line (the container's line when `image` is missing).
pub(crate) fn latest_tag(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    per_container_at(object, |_, c| {
        BLOCKED.iter().any(|r| r.is_match(&c.image)).then(|| {
            (
                c.field_line("image"),
                format!(
                    "container {:?} uses image {:?} without a pinned version tag",
                    c.name, c.image
                ),
            )
        })
    })
}
