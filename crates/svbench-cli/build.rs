//! Embeds build provenance (git commit, rustc version, target) at compile time.

use std::process::Command;

fn main() {
    // Empty when the source is not a git checkout (e.g. a release tarball or
    // a container build) and SVBENCH_BUILD_GIT_SHA does not name the commit:
    // metadata then records null and the run manifest `unknown`.
    let mut full = git(&["rev-parse", "HEAD"]);
    if full.is_empty() {
        full = given_sha();
    }
    let commit: String = full.chars().take(12).collect();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let rustc_version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=SVBENCH_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=SVBENCH_GIT_SHA={full}");
    println!("cargo:rustc-env=SVBENCH_RUSTC_VERSION={rustc_version}");
    println!(
        "cargo:rustc-env=SVBENCH_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    println!("cargo:rerun-if-env-changed=SVBENCH_BUILD_GIT_SHA");
    println!("cargo:rerun-if-changed=../../.git/HEAD");
    println!("cargo:rerun-if-changed=../../.git/refs");
}

/// Output of `git ARGS`, trimmed; empty if git is missing or fails.
fn git(args: &[&str]) -> String {
    Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The commit a build without `.git` was made from (the Dockerfile passes
/// it), if it looks like a hex SHA-1; anything else is ignored.
fn given_sha() -> String {
    let sha = std::env::var("SVBENCH_BUILD_GIT_SHA").unwrap_or_default();
    let sha = sha.trim();
    if sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        sha.to_ascii_lowercase()
    } else {
        String::new()
    }
}
