//! The four splits of a generated corpus (train, dev, test and an
//! out-of-distribution split) and their sizes, for the generators that use
//! all four.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::GenError;

/// A dataset split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Split {
    /// Training rows.
    Train,
    /// Development rows.
    Dev,
    /// Test rows.
    Test,
    /// Out-of-distribution rows.
    Ood,
}

impl Split {
    /// All splits in file order.
    pub const ALL: [Split; 4] = [Split::Train, Split::Dev, Split::Test, Split::Ood];

    /// `train`, `dev`, `test` or `ood`.
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Dev => "dev",
            Split::Test => "test",
            Split::Ood => "ood",
        }
    }
}

impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Split {
    type Err = GenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        super::parse_split(s, &Split::ALL, Split::as_str)
    }
}

/// Rows per split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitSizes {
    /// Training rows.
    pub train: usize,
    /// Development rows.
    pub dev: usize,
    /// Test rows.
    pub test: usize,
    /// Out-of-distribution rows.
    pub ood: usize,
}

impl SplitSizes {
    /// The size of one split.
    pub fn get(&self, split: Split) -> usize {
        match split {
            Split::Train => self.train,
            Split::Dev => self.dev,
            Split::Test => self.test,
            Split::Ood => self.ood,
        }
    }

    /// Checks a manifest's files against these sizes before the corpus is
    /// regenerated: each `(path, split, rows)` names a split and has its
    /// size (a manifest edited by hand would regenerate other rows).
    ///
    /// # Errors
    /// [`GenError::Config`] for an unknown split, [`GenError::Manifest`]
    /// naming the first file whose rows disagree.
    pub fn check_files<'a>(
        &self,
        files: impl IntoIterator<Item = (&'a str, &'a str, usize)>,
    ) -> Result<(), GenError> {
        for (path, split_name, rows) in files {
            let split: Split = split_name.parse()?;
            if self.get(split) != rows {
                return Err(GenError::Manifest(format!(
                    "manifest file {path} has {rows} rows but config.sizes.{split_name} is {}",
                    self.get(split)
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_file_must_have_its_split_s_size() {
        let sizes = SplitSizes {
            train: 3,
            dev: 1,
            test: 2,
            ood: 0,
        };
        let ok = [("train.jsonl", "train", 3), ("test.jsonl", "test", 2)];
        assert!(sizes.check_files(ok).is_ok());
        let err = sizes
            .check_files([("train.jsonl", "train", 3), ("dev.jsonl", "dev", 5)])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            GenError::Manifest(
                "manifest file dev.jsonl has 5 rows but config.sizes.dev is 1".into()
            )
            .to_string()
        );
        assert!(matches!(
            sizes.check_files([("x.jsonl", "val", 1)]),
            Err(GenError::Config(_))
        ));
    }
}
