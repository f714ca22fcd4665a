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
}
