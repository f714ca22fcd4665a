//! Property tests: no input makes the YAML model panic.

use proptest::prelude::*;
use svbench_scan::{decode_input, parse_documents, resolve_plain, Limits};

fn small_limits() -> Limits {
    Limits {
        max_input_bytes: 1 << 16,
        max_depth: 64,
        max_nodes: 10_000,
        nodes_per_byte: 1,
        max_file_nodes: 40_000,
    }
}

/// YAML-ish fragments so that generated text reaches deep parser states.
fn yamlish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "---",
        "--- #c",
        "...",
        "\n",
        "  ",
        "- ",
        "? ",
        ": ",
        "a",
        "key",
        "&a ",
        "*a",
        "<<",
        "[",
        "]",
        "{",
        "}",
        ",",
        "'",
        "\"",
        "#",
        "|",
        ">",
        "!!str ",
        "!!int ",
        "!x ",
        "yes",
        "0x1F",
        "0o7",
        "~",
        ".inf",
        "\t",
        "%YAML 1.1\n",
        "\\",
        "\u{feff}",
        "é",
    ]);
    prop::collection::vec(atoms, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        for doc in parse_documents(&text, &small_limits()) {
            if let Ok(node) = doc.result {
                let _ = node.to_json();
            }
        }
        let _ = resolve_plain(&text);
    }

    #[test]
    fn yamlish_strings_never_panic(text in yamlish()) {
        for doc in parse_documents(&text, &small_limits()) {
            if let Ok(node) = doc.result {
                let _ = node.to_json();
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(text) = decode_input(&bytes, &small_limits()) {
            let _ = parse_documents(text, &small_limits());
        }
    }
}
