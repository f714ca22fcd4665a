//! Scalar resolution: YAML 1.1 as go-yaml v2 does it.

use svbench_scan::{parse_documents, resolve_plain, Limits, Node, ScalarValue, YamlError};
use ScalarValue::{Bool, Float, Int, Null, Uint};

fn value(yaml: &str) -> Result<ScalarValue, YamlError> {
    let docs = parse_documents(&format!("v: {yaml}\n"), &Limits::default());
    let node: Node = docs.into_iter().next().expect("one document").result?;
    Ok(node
        .get("v")
        .expect("key v")
        .scalar_value()
        .expect("scalar"))
}

#[test]
fn booleans_in_every_case() {
    for t in [
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
    ] {
        assert_eq!(resolve_plain(t), Bool(true), "{t}");
        assert_eq!(value(t), Ok(Bool(true)), "{t}");
    }
    for f in [
        "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
    ] {
        assert_eq!(resolve_plain(f), Bool(false), "{f}");
        assert_eq!(value(f), Ok(Bool(false)), "{f}");
    }
    for s in ["yEs", "tRUE", "oN", "ye", "nO", "Yes!", "yes please"] {
        assert_eq!(resolve_plain(s), ScalarValue::String, "{s}");
    }
}

#[test]
fn null_forms() {
    for n in ["~", "null", "Null", "NULL", ""] {
        assert_eq!(resolve_plain(n), Null, "{n:?}");
    }
    assert_eq!(value(""), Ok(Null));
    assert_eq!(value("~"), Ok(Null));
    assert_eq!(resolve_plain("nULL"), ScalarValue::String);
}

#[test]
fn integers() {
    let cases: &[(&str, ScalarValue)] = &[
        ("0", Int(0)),
        ("42", Int(42)),
        ("+42", Int(42)),
        ("-42", Int(-42)),
        ("1_000", Int(1000)),
        ("0x1F", Int(31)),
        ("0X1f", Int(31)),
        ("-0x10", Int(-16)),
        ("0o17", Int(15)),
        ("017", Int(15)),
        ("-017", Int(-15)),
        ("0b101", Int(5)),
        ("-0b101", Int(-5)),
        ("0755", Int(493)),
        ("9223372036854775807", Int(i64::MAX)),
        ("-9223372036854775808", Int(i64::MIN)),
        ("18446744073709551615", Uint(u64::MAX)),
    ];
    for (text, want) in cases {
        assert_eq!(resolve_plain(text), *want, "{text}");
        assert_eq!(value(text).as_ref(), Ok(want), "{text}");
    }
}

#[test]
fn number_edge_cases_follow_go() {
    // Invalid octal digits fall through to the float pattern.
    assert_eq!(resolve_plain("08"), Float(8.0));
    assert_eq!(resolve_plain("09.5"), Float(9.5));
    // Too large for u64: a float when it looks like one.
    assert_eq!(resolve_plain("99999999999999999999"), Float(1e20));
    assert_eq!(
        resolve_plain("-9223372036854775809"),
        Float(-9223372036854775809.0)
    );
    // Hex overflow and bare prefixes stay strings.
    assert_eq!(resolve_plain("0x1FFFFFFFFFFFFFFFFF"), ScalarValue::String);
    assert_eq!(resolve_plain("0x"), ScalarValue::String);
    assert_eq!(resolve_plain("0xG"), ScalarValue::String);
    // Float overflow is a range error in Go: the text stays a string.
    assert_eq!(resolve_plain("1e400"), ScalarValue::String);
    // Things that look numeric but are not.
    for s in [
        "1.2.3",
        "1e",
        "+",
        "-",
        "_1",
        "1-2",
        "12:30",
        "2001-12-14",
        "1Gi",
        "500m",
    ] {
        assert_eq!(resolve_plain(s), ScalarValue::String, "{s}");
    }
}

#[test]
fn floats() {
    let cases: &[(&str, f64)] = &[
        ("1.5", 1.5),
        ("-1.5", -1.5),
        ("+1.5", 1.5),
        ("1.", 1.0),
        (".5", 0.5),
        ("1e3", 1000.0),
        ("1.5E-2", 0.015),
        ("1_000.5", 1000.5),
        (".inf", f64::INFINITY),
        (".Inf", f64::INFINITY),
        (".INF", f64::INFINITY),
        ("+.inf", f64::INFINITY),
        ("-.inf", f64::NEG_INFINITY),
        ("-.Inf", f64::NEG_INFINITY),
        ("-.INF", f64::NEG_INFINITY),
    ];
    for (text, want) in cases {
        assert_eq!(resolve_plain(text), Float(*want), "{text}");
    }
    for nan in [".nan", ".NaN", ".NAN"] {
        assert!(
            matches!(resolve_plain(nan), Float(f) if f.is_nan()),
            "{nan}"
        );
    }
    for s in [".inF", "inf", "nan", "NaN", "Infinity", ".", "._5"] {
        assert_eq!(resolve_plain(s), ScalarValue::String, "{s}");
    }
}

#[test]
fn quoted_and_block_scalars_are_always_strings() {
    for text in [
        "'yes'", "\"yes\"", "'1'", "\"0x10\"", "'~'", "\"\"", "'null'", "\"1.5\"",
    ] {
        assert_eq!(value(text), Ok(ScalarValue::String), "{text}");
    }
    assert_eq!(value("|\n  yes"), Ok(ScalarValue::String));
    assert_eq!(value(">\n  123"), Ok(ScalarValue::String));
}

#[test]
fn explicit_tags() {
    assert_eq!(value("!!str yes"), Ok(ScalarValue::String));
    assert_eq!(value("!!str 1"), Ok(ScalarValue::String));
    assert_eq!(value("!!int \"42\""), Ok(Int(42)));
    assert_eq!(value("!!int 0x10"), Ok(Int(16)));
    assert_eq!(value("!!bool 'on'"), Ok(Bool(true)));
    assert_eq!(value("!!float 1"), Ok(Float(1.0)));
    assert_eq!(value("!!float '2.5'"), Ok(Float(2.5)));
    // Tags go-yaml v2 does not resolve leave the text a string.
    assert_eq!(value("!custom 1"), Ok(ScalarValue::String));
    assert_eq!(value("! 1"), Ok(ScalarValue::String));
    assert_eq!(value("!!null ~"), Ok(ScalarValue::String));
    assert_eq!(value("!!timestamp 2001-12-14"), Ok(ScalarValue::String));
    // A tag that does not fit the text is an error with the line.
    assert!(matches!(
        value("!!int abc"),
        Err(YamlError::TagMismatch { line: 1, ref tag, ref found, .. }) if tag == "!!int" && found == "!!str"
    ));
    assert!(matches!(
        value("!!bool 1"),
        Err(YamlError::TagMismatch { .. })
    ));
    assert!(matches!(
        value("!!float yes"),
        Err(YamlError::TagMismatch { .. })
    ));
}

#[test]
fn binary_tag_decodes_base64() {
    let docs = parse_documents("v: !!binary aGVsbG8=\n", &Limits::default());
    let node = docs[0].result.as_ref().expect("parses");
    assert_eq!(node.get("v").and_then(Node::as_str), Some("hello"));
    assert_eq!(
        node.get("v").and_then(|v| v.tag.as_deref()),
        Some("!!binary")
    );
    let bad = parse_documents("v: !!binary '@@@'\n", &Limits::default());
    assert_eq!(bad[0].result, Err(YamlError::InvalidBinary { line: 1 }));
}

#[test]
fn tags_are_recorded_in_short_form() {
    let docs = parse_documents("a: !!str x\nb: !local y\nc: z\n", &Limits::default());
    let node = docs[0].result.as_ref().expect("parses");
    let tag = |k: &str| node.get(k).and_then(|v| v.tag.clone());
    assert_eq!(tag("a").as_deref(), Some("!!str"));
    assert_eq!(tag("b").as_deref(), Some("!local"));
    assert_eq!(tag("c"), None);
}
