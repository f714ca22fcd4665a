//! HCL: the Terraform reader (`svbench_scan::terraform`), its canonical JSON
//! blocks, line map and policy inputs.
//!
//! Invariants: no panic; every block line and every recorded pointer line
//! lies in the file; addresses are unique (duplicates are a parse error);
//! errors name a line in the file; parsing is deterministic.

use std::collections::BTreeSet;

use svbench_scan::terraform::{parse_module, TfBlock};

/// One input: the text of a `.tf` file.
pub fn run(data: &[u8]) {
    let Some(text) = crate::utf8(data) else {
        return;
    };
    let last_line = crate::max_line(text);
    match parse_module(text) {
        Ok(module) => {
            let mut addresses = BTreeSet::new();
            for block in module.blocks.iter().chain(&module.data_sources) {
                check_block(block, last_line);
                assert!(
                    addresses.insert(block.address.clone()),
                    "duplicate address {}",
                    block.address
                );
            }
            let view = module.module_view();
            assert!(view.is_object());
            let inputs = module.policy_inputs("main.tf");
            assert_eq!(inputs.len(), module.blocks.len());
            assert!(
                parse_module(text).as_ref() == Ok(&module),
                "parse is not deterministic"
            );
        }
        Err(e) => {
            if let Some(line) = e.line() {
                assert!(
                    (1..=last_line).contains(&line),
                    "error line {line} outside the file ({last_line}): {e}"
                );
            }
        }
    }
}

fn check_block(block: &TfBlock, last_line: usize) {
    assert!(
        (1..=last_line).contains(&block.line),
        "block {} at line {} outside the file",
        block.address,
        block.line
    );
    assert!(block.config.is_object(), "block config is not an object");
    for (pointer, line) in &block.lines {
        assert!(
            (1..=last_line).contains(line),
            "{}{pointer} at line {line} outside the file",
            block.address
        );
        assert!(
            (1..=last_line).contains(&block.line_of(pointer)),
            "line_of({pointer}) outside the file"
        );
    }
    let _ = block.to_json();
}
