//! Build provenance embedded at compile time by `build.rs`.

/// svbench version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `rustc --version` of the compiler that built svbench.
pub const RUSTC_VERSION: &str = env!("SVBENCH_RUSTC_VERSION");
/// Target triple.
pub const TARGET: &str = env!("SVBENCH_TARGET");

/// Short commit of the source built, if it was built from a git checkout.
pub fn git_commit() -> Option<String> {
    let c = env!("SVBENCH_GIT_COMMIT");
    (!c.is_empty()).then(|| c.to_string())
}

/// Full commit of the source built, if it was built from a git checkout.
pub fn git_sha() -> Option<String> {
    let c = env!("SVBENCH_GIT_SHA");
    (!c.is_empty()).then(|| c.to_string())
}
