//! Which files on the machine running the environments a caller's
//! environment arguments may name.
//!
//! Some arguments are paths read when the environment is configured (E2's
//! `policy_dirs` and `semgrep_config`, listed by
//! [`EnvId::path_arg_names`]). For the local user (the CLI, the Python
//! bindings in-process) they name the user's own files. For a remote caller
//! (`svbench serve`) they would let anyone who can reach the server read,
//! walk and probe the server's disk, so there they are refused unless the
//! operator allowed directories at start-up, and then they must resolve
//! (symbolic links followed) inside one of them.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::envs::{EnvConfig, EnvId};
use crate::error::{ApiError, ErrorCode};

/// The filesystem access granted to the callers of a [`crate::Service`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FsAccess {
    /// Any path: the caller is the local user, configuring environments on
    /// their own machine (the Python bindings).
    Local,
    /// Only paths that resolve inside these directories (canonical, built
    /// by [`FsAccess::within`]); none at all when the list is empty.
    Restricted(Vec<PathBuf>),
}

impl Default for FsAccess {
    /// No path is accepted: the safe choice for a caller acting for others.
    fn default() -> Self {
        FsAccess::Restricted(Vec::new())
    }
}

/// An allowed directory that cannot be used (at start-up).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FsAccessError {
    /// The directory cannot be resolved (missing, unreadable).
    #[error("allowed directory {path}: {source}")]
    Resolve {
        /// The path given.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The path is not a directory.
    #[error("allowed directory {0}: not a directory")]
    NotADirectory(PathBuf),
}

impl FsAccess {
    /// Only paths inside `dirs`, each canonicalised now (symbolic links
    /// resolved), so a later request cannot escape through `..` or a link.
    ///
    /// # Errors
    /// A directory that does not exist, cannot be resolved, or is a file.
    pub fn within<P: AsRef<Path>>(
        dirs: impl IntoIterator<Item = P>,
    ) -> Result<Self, FsAccessError> {
        let mut allowed = Vec::new();
        for dir in dirs {
            let dir = dir.as_ref();
            let canonical = dir
                .canonicalize()
                .map_err(|source| FsAccessError::Resolve {
                    path: dir.to_owned(),
                    source,
                })?;
            if !canonical.is_dir() {
                return Err(FsAccessError::NotADirectory(dir.to_owned()));
            }
            if !allowed.contains(&canonical) {
                allowed.push(canonical);
            }
        }
        Ok(FsAccess::Restricted(allowed))
    }

    /// Whether paths are confined (true for every caller but the local user).
    #[must_use]
    pub fn is_restricted(&self) -> bool {
        matches!(self, FsAccess::Restricted(_))
    }

    /// The configuration with its path arguments checked and replaced by
    /// their canonical forms (so what is read is what was checked).
    ///
    /// The error never says whether a path outside the allowed directories
    /// exists: a missing path and a forbidden one get the same message.
    ///
    /// # Errors
    /// `invalid_env_args` for a path argument that is not allowed.
    pub fn check(&self, id: EnvId, config: &EnvConfig) -> Result<EnvConfig, ApiError> {
        let FsAccess::Restricted(allowed) = self else {
            return Ok(config.clone());
        };
        let mut checked = config.clone();
        for key in id.path_arg_names() {
            let Some(value) = config.env_args.get(*key) else {
                continue;
            };
            let paths = path_values(key, value)?;
            if paths.is_empty() {
                // Names no path: pass on exactly that (not the raw text),
                // so what the environment reads is what was checked.
                checked
                    .env_args
                    .insert((*key).to_string(), Value::String(String::new()));
                continue;
            }
            if allowed.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::InvalidEnvArgs,
                    format!(
                        "env_args.{key}: this server accepts no filesystem paths in environment \
                         arguments (its operator can allow directories with \
                         `svbench serve --allow-policy-dir DIR`)"
                    ),
                ));
            }
            let mut resolved = Vec::with_capacity(paths.len());
            for given in paths {
                let inside = Path::new(&given)
                    .canonicalize()
                    .ok()
                    .filter(|c| allowed.iter().any(|dir| c.starts_with(dir)));
                // Paths are joined with commas for the environment: one
                // holding a comma could not be passed on unchanged.
                let canonical = inside
                    .and_then(|c| c.to_str().map(str::to_owned))
                    .filter(|c| *key != "policy_dirs" || !c.contains(','))
                    .ok_or_else(|| {
                        ApiError::new(
                            ErrorCode::InvalidEnvArgs,
                            format!(
                                "env_args.{key}: `{given}` is not an existing path inside a \
                                 directory this server allows (--allow-policy-dir)"
                            ),
                        )
                    })?;
                resolved.push(canonical);
            }
            checked
                .env_args
                .insert((*key).to_string(), Value::String(resolved.join(",")));
        }
        Ok(checked)
    }
}

/// The paths an argument's value names: a comma-separated string or a list
/// of strings (as [`crate::envs::configure`] reads them); empty names none.
fn path_values(key: &str, value: &Value) -> Result<Vec<String>, ApiError> {
    let texts: Vec<&str> = match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items
            .iter()
            .map(|v| {
                v.as_str().ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::InvalidEnvArgs,
                        format!("env_args.{key}: list items must be strings"),
                    )
                })
            })
            .collect::<Result<_, _>>()?,
        _ => {
            return Err(ApiError::new(
                ErrorCode::InvalidEnvArgs,
                format!("env_args.{key}: expected a path (a string) or a list of paths"),
            ))
        }
    };
    // `policy_dirs` is a comma list; the other path arguments name one path.
    let split = |t: &&str| -> Vec<String> {
        if key == "policy_dirs" {
            t.split(',').map(str::to_owned).collect()
        } else {
            vec![(*t).to_owned()]
        }
    };
    Ok(texts
        .iter()
        .flat_map(split)
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect())
}

/// Whether a configuration names any path argument.
#[must_use]
pub fn names_paths(id: EnvId, env_args: &Map<String, Value>) -> bool {
    id.path_arg_names()
        .iter()
        .any(|k| env_args.contains_key(*k))
}
