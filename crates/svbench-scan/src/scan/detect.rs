//! Which analyzers a file gets (harness §1.2 `--type auto`).

use std::path::Path;

use serde::Serialize;

/// A file type the config analyzers understand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileType {
    /// Kubernetes YAML.
    K8s,
    /// Terraform HCL.
    Tf,
}

impl FileType {
    /// `k8s` or `tf`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FileType::K8s => "k8s",
            FileType::Tf => "tf",
        }
    }
}

/// `.tf` → Terraform; `.yaml`/`.yml`/`.json` holding an `apiVersion` key →
/// Kubernetes; anything else is not recognised (`None`): callers decide
/// whether that is an error (a file named on the command line) or a skip
/// (a file met in a directory walk).
#[must_use]
pub fn detect_type(path: &Path, bytes: &[u8]) -> Option<FileType> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("tf") => Some(FileType::Tf),
        Some("yaml" | "yml" | "json") if mentions_api_version(bytes) => Some(FileType::K8s),
        _ => None,
    }
}

/// Whether some line holds an `apiVersion` key (block or flow style, quoted
/// or not). Cheap and deliberately loose: the analyzers decide the rest.
fn mentions_api_version(bytes: &[u8]) -> bool {
    bytes
        .windows(b"apiVersion".len() + 1)
        .enumerate()
        .any(|(i, w)| {
            w.starts_with(b"apiVersion")
                && matches!(w[w.len() - 1], b':' | b'"' | b'\'')
                && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_follow_extension_and_content() {
        let k8s = b"apiVersion: v1\nkind: Pod\n";
        assert_eq!(detect_type(Path::new("a.yaml"), k8s), Some(FileType::K8s));
        assert_eq!(detect_type(Path::new("a.YML"), k8s), Some(FileType::K8s));
        assert_eq!(
            detect_type(Path::new("a.json"), br#"{"apiVersion": "v1"}"#),
            Some(FileType::K8s)
        );
        assert_eq!(detect_type(Path::new("main.tf"), b""), Some(FileType::Tf));
        assert_eq!(
            detect_type(Path::new("values.yaml"), b"replicas: 2\n"),
            None
        );
        assert_eq!(detect_type(Path::new("x.yaml"), b"myapiVersion: 1\n"), None);
        assert_eq!(detect_type(Path::new("notes.txt"), k8s), None);
    }
}
