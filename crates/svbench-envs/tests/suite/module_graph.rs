//! Environments are plugins: generic modules (the kit, the policy plumbing,
//! the `Environment` trait) import no environment, and no environment
//! imports another. Only the registry's table names every environment.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("source folder reads") {
        let path = entry.expect("entry reads").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The environment folders (`e1`, `e2`, …) of the crate.
fn environments(src: &Path) -> Vec<String> {
    let mut envs: Vec<String> = std::fs::read_dir(src)
        .expect("src reads")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let is_env = name.len() > 1
                && name.starts_with('e')
                && name[1..].chars().all(|c| c.is_ascii_digit());
            is_env.then_some(name)
        })
        .collect();
    envs.sort();
    envs
}

/// Environments a source file's code names as `crate::eN` (or `svbench_envs::eN`).
fn named_environments(text: &str, envs: &[String]) -> Vec<String> {
    envs.iter()
        .filter(|env| {
            [format!("crate::{env}::"), format!("svbench_envs::{env}::")]
                .iter()
                .any(|path| {
                    text.lines()
                        .filter(|l| !l.trim_start().starts_with("//"))
                        .any(|l| l.contains(path.as_str()))
                })
        })
        .cloned()
        .collect()
}

#[test]
fn generic_modules_import_no_environment_and_environments_not_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let envs = environments(&src);
    assert!(envs.len() >= 3, "found environment folders {envs:?}");
    let mut offences = Vec::new();
    for file in sources(&src) {
        let rel = file.strip_prefix(&src).expect("under src");
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .unwrap_or_default()
            .trim_end_matches(".rs")
            .to_string();
        if top == "registry" {
            continue; // the one table of every environment
        }
        let text = std::fs::read_to_string(&file).expect("source reads");
        for env in named_environments(&text, &envs) {
            if env != top {
                offences.push(format!("{} names {env}", rel.display()));
            }
        }
    }
    assert!(offences.is_empty(), "{offences:#?}");
}
