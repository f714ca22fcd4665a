//! svbench reports: metrics recomputed from `metadata.json` and `results.jsonl` alone.
