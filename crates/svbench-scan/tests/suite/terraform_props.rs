//! The Terraform parser never panics, whatever the text.

use proptest::prelude::*;
use svbench_scan::terraform::parse_module;

const FRAGMENTS: &[&str] = &[
    "resource",
    "variable",
    "dynamic",
    "\"aws_s3_bucket\"",
    "\"b\"",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "=",
    "\n",
    " ",
    "var.x",
    "jsonencode(",
    "${",
    "\"",
    "<<EOT\n",
    "EOT\n",
    "<<-EOT\n",
    "for",
    "in",
    ":",
    "?",
    ",",
    "1",
    "1.5e3",
    "true",
    "null",
    "#c\n",
    "/*",
    "*/",
    "[*]",
    ".0",
    "...",
    "=>",
];

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in ".{0,200}") {
        let _ = parse_module(&text);
    }

    #[test]
    fn hcl_ish_fragments_never_panic(parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..60)) {
        let text: String = parts.into_iter().map(|i| FRAGMENTS[i]).collect();
        if let Ok(module) = parse_module(&text) {
            // Whatever parses has a line inside the text and a JSON object config.
            let lines = text.lines().count().max(1);
            for block in &module.blocks {
                prop_assert!(block.line >= 1 && block.line <= lines);
                prop_assert!(block.config.is_object());
            }
            let _ = module.policy_inputs("main.tf");
        }
    }
}
