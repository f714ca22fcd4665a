//! `summary.json` types (harness §4.1, §4.2; E1 §4.7).
