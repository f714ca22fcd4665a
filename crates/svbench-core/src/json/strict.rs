//! Strict RFC 8259 JSON with duplicate-key detection (the `v1` reader,
//! E1 §2.3 step 4).
//!
//! No `NaN`/`Infinity` literals, comments or trailing commas; whitespace is
//! space, tab, LF and CR; raw control characters in strings are rejected.
//! Differences from `serde_json` that the parser relies on: duplicate keys are
//! kept and flagged instead of merged, numbers that overflow f64 (`1e400`)
//! parse as ±inf instead of failing, and each number remembers whether it was
//! written as an integer. A lone surrogate escape (`"\ud800"`, grammatical in
//! RFC 8259) becomes U+FFFD.

use std::borrow::Cow;

use super::lexer::{token_f64, Lexer, NumberToken};
use super::reader::{
    has_duplicate_key, read_document, read_object_document, variant_constructors, Dialect,
};
use super::{JsonError, MAX_DEPTH};

/// A JSON value; strings borrow from the input when they hold no escapes.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string, unescaped.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Value<'a>>),
    /// An object.
    Object(Object<'a>),
}

/// A JSON number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number {
    /// The nearest f64; ±inf when the magnitude overflows f64 (`1e400`).
    pub value: f64,
    /// Whether it was written without fraction and exponent (`1`, not `1.0`).
    pub integer: bool,
}

impl Number {
    /// Whether the value is finite as f64.
    pub fn is_finite(self) -> bool {
        self.value.is_finite()
    }
}

/// A JSON object: members in input order, duplicates kept.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a> {
    members: Vec<(Cow<'a, str>, Value<'a>)>,
    duplicate_here: bool,
    duplicate_within: bool,
}

impl<'a> Object<'a> {
    /// Builds an object from members in order, computing its duplicate flags.
    pub fn from_members(members: Vec<(Cow<'a, str>, Value<'a>)>) -> Self {
        let duplicate_here = has_duplicate_key(&members);
        let duplicate_within =
            duplicate_here || members.iter().any(|(_, v)| v.has_duplicate_keys());
        Object {
            members,
            duplicate_here,
            duplicate_within,
        }
    }

    /// The value of the first member named `key`.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.members
            .iter()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| v)
    }

    /// Whether a member named `key` exists at the top level.
    pub fn contains_key(&self, key: &str) -> bool {
        self.members.iter().any(|(k, _)| k.as_ref() == key)
    }

    /// Members in input order, duplicates included.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value<'a>)> {
        self.members.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// Number of members, duplicates included.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Whether two members of this object (not of nested ones) share a key.
    pub fn has_duplicate_here(&self) -> bool {
        self.duplicate_here
    }

    /// Whether this object or any object nested in it has a duplicate key.
    pub fn has_duplicate_keys(&self) -> bool {
        self.duplicate_within
    }

    /// Copies every borrowed string so the object outlives its input.
    pub fn into_owned(self) -> Object<'static> {
        Object {
            members: self
                .members
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                .collect(),
            duplicate_here: self.duplicate_here,
            duplicate_within: self.duplicate_within,
        }
    }
}

impl<'a> Value<'a> {
    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<Number> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// Whether any object in this value (at any depth) has a duplicate key.
    pub fn has_duplicate_keys(&self) -> bool {
        match self {
            Value::Object(o) => o.has_duplicate_keys(),
            Value::Array(items) => items.iter().any(Value::has_duplicate_keys),
            _ => false,
        }
    }

    /// The JSON type name (`null`, `boolean`, `number`, `string`, `array`,
    /// `object`), for diagnostics.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// Copies every borrowed string so the value outlives its input.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Number(n) => Value::Number(n),
            Value::String(s) => Value::String(Cow::Owned(s.into_owned())),
            Value::Array(items) => Value::Array(items.into_iter().map(Value::into_owned).collect()),
            Value::Object(o) => Value::Object(o.into_owned()),
        }
    }
}

/// Parses `text` as one strict JSON value, with optional surrounding
/// whitespace.
pub fn parse(text: &str) -> Result<Value<'_>, JsonError> {
    read_document::<Strict>(text)
}

/// Parses `text` and returns it only if it is a JSON object.
pub fn parse_object(text: &str) -> Option<Object<'_>> {
    read_object_document::<Strict>(text)
}

/// The strict dialect of the shared container reader; a value is marked
/// when it holds a duplicate key at any depth.
struct Strict;

impl<'a> Dialect<'a> for Strict {
    type Value = Value<'a>;
    type Object = Object<'a>;
    const MAX_DEPTH: usize = MAX_DEPTH;

    variant_constructors!(Value { null => Null, bool => Bool, string => String, object => Object });

    fn number(_lx: &Lexer<'a>, token: NumberToken<'a>) -> Result<Value<'a>, JsonError> {
        Ok(Value::Number(Number {
            value: token_f64(token.text),
            integer: token.integer,
        }))
    }

    fn array(items: Vec<Value<'a>>, marked: bool) -> (Value<'a>, bool) {
        (Value::Array(items), marked)
    }

    fn object(members: Vec<(Cow<'a, str>, Value<'a>)>, marked: bool) -> (Value<'a>, bool) {
        let duplicate_here = has_duplicate_key(&members);
        let duplicate_within = duplicate_here || marked;
        let object = Object {
            members,
            duplicate_here,
            duplicate_within,
        };
        (Value::Object(object), duplicate_within)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::JsonErrorKind;

    fn obj(text: &str) -> Object<'_> {
        match parse(text) {
            Ok(Value::Object(o)) => o,
            other => panic!("not an object: {other:?}"),
        }
    }

    #[test]
    fn parses_scalars() {
        assert_eq!(parse("null"), Ok(Value::Null));
        assert_eq!(parse(" true "), Ok(Value::Bool(true)));
        assert_eq!(parse("\tfalse\r\n"), Ok(Value::Bool(false)));
        assert_eq!(parse(r#""a\nb""#), Ok(Value::String("a\nb".into())));
        let n = parse("-0.5e1").unwrap().as_number().unwrap();
        assert_eq!((n.value, n.integer), (-5.0, false));
        let n = parse("42").unwrap().as_number().unwrap();
        assert_eq!((n.value, n.integer), (42.0, true));
    }

    #[test]
    fn overflow_is_infinite_not_an_error() {
        let n = parse("1e400").unwrap().as_number().unwrap();
        assert_eq!(n.value, f64::INFINITY);
        assert!(!n.is_finite());
        let n = parse("-1e400").unwrap().as_number().unwrap();
        assert_eq!(n.value, f64::NEG_INFINITY);
        let big = "9".repeat(400);
        let n = parse(&big).unwrap().as_number().unwrap();
        assert!(n.integer && n.value.is_infinite());
        let n = parse("1e-400").unwrap().as_number().unwrap();
        assert_eq!(n.value, 0.0);
    }

    #[test]
    fn rejects_non_rfc_input() {
        for bad in [
            "NaN",
            "Infinity",
            "-Infinity",
            "[1,]",
            r#"{"a":1,}"#,
            "{'a':1}",
            "01",
            "1.",
            ".5",
            "1e",
            "+1",
            "-",
            "tru",
            "nul",
            "\"a\u{1}\"",
            "\"\\x\"",
            "\"\\u12\"",
            "\"abc",
            "// c\n1",
            "\u{feff}1",
            "\u{c}1",
            "\u{a0}1",
            "1 2",
            "",
            "   ",
            "{\"a\" 1}",
            "{1:2}",
            "[1 2]",
        ] {
            assert!(parse(bad).is_err(), "accepted {bad:?}");
        }
    }

    #[test]
    fn escapes_and_surrogates() {
        let v = parse(r#""\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00""#).unwrap();
        assert_eq!(v.as_str(), Some("\"\\/\u{8}\u{c}\n\r\té😀"));
        assert_eq!(parse(r#""\ud800""#).unwrap().as_str(), Some("\u{fffd}"));
        assert_eq!(parse(r#""\udc00x""#).unwrap().as_str(), Some("\u{fffd}x"));
        assert_eq!(
            parse(r#""\ud800\ud800\udc00""#).unwrap().as_str(),
            Some("\u{fffd}\u{10000}")
        );
        assert_eq!(
            parse("\"\u{7f}\u{2028}\"").unwrap().as_str(),
            Some("\u{7f}\u{2028}")
        );
        // Borrowed when there is no escape.
        assert!(matches!(
            parse(r#""plain""#),
            Ok(Value::String(Cow::Borrowed("plain")))
        ));
    }

    #[test]
    fn duplicate_keys_are_flagged_at_every_depth() {
        let o = obj(r#"{"a":1,"a":2}"#);
        assert!(o.has_duplicate_here() && o.has_duplicate_keys());
        assert_eq!(o.len(), 2);
        assert_eq!(
            o.get("a").and_then(Value::as_number).map(|n| n.value),
            Some(1.0)
        );

        let o = obj(r#"{"a":{"b":1,"b":1}}"#);
        assert!(!o.has_duplicate_here() && o.has_duplicate_keys());
        let o = obj(r#"{"a":[0,{"c":{"d":1,"d":2}}]}"#);
        assert!(o.has_duplicate_keys());
        let o = obj(r#"{"a":{"b":1},"c":{"b":1}}"#);
        assert!(!o.has_duplicate_keys());

        // Large objects take the sorted path.
        let mut text = String::from("{");
        for i in 0..40 {
            text.push_str(&format!("\"k{i}\":{i},"));
        }
        text.push_str("\"k39\":0}");
        assert!(obj(&text).has_duplicate_here());
        let unique = text.replace("\"k39\":0}", "\"k40\":0}");
        assert!(!obj(&unique).has_duplicate_here());
        // Escaped and raw spellings of a key are the same key.
        assert!(obj(r#"{"a":1,"\u0061":2}"#).has_duplicate_here());
    }

    #[test]
    fn depth_is_bounded() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(
            parse(&deep).map_err(|e| e.kind),
            Err(JsonErrorKind::TooDeep)
        );
        let hostile = "{\"a\":".repeat(100_000);
        assert!(parse(&hostile).is_err());
        // Refused at the bracket past the bound, before what follows it.
        let text = format!("{}x", "[".repeat(MAX_DEPTH + 1));
        assert_eq!(
            parse(&text),
            Err(JsonError {
                offset: MAX_DEPTH,
                kind: JsonErrorKind::TooDeep
            })
        );
    }

    #[test]
    fn parse_object_only_accepts_objects() {
        assert!(parse_object(" {\"a\":1} ").is_some());
        assert!(parse_object("[{\"a\":1}]").is_none());
        assert!(parse_object("\"{}\"").is_none());
        assert!(parse_object("{").is_none());
    }

    #[test]
    fn into_owned_preserves_everything() {
        let text = String::from(r#"{"k":"v","n":[1,2.5,null,true],"d":{"x":1,"x":2}}"#);
        let owned = obj(&text).into_owned();
        drop(text);
        assert_eq!(owned.get("k").and_then(Value::as_str), Some("v"));
        assert!(owned.has_duplicate_keys());
        assert_eq!(owned.len(), 3);
    }

    #[test]
    fn nesting_never_exhausts_the_stack() {
        // Rust's default for spawned threads (tokio's blocking pool too).
        const STACK: usize = 2 << 20;
        // Issue 14 item 9: `v1` keeps its bound, and input of any depth is
        // refused at the bound on a thread with a default-size stack (the
        // reader keeps open containers on the heap).
        let run = || {
            for text in [
                format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
                format!("{}0{}", "{\"a\":".repeat(100_000), "}".repeat(100_000)),
                "{\"a\":[".repeat(50_000),
            ] {
                assert_eq!(
                    parse(&text).map_err(|e| e.kind),
                    Err(JsonErrorKind::TooDeep)
                );
                assert!(parse_object(&text).is_none());
            }
            let ok = format!("{}0{}", "{\"a\":".repeat(MAX_DEPTH), "}".repeat(MAX_DEPTH));
            let value = parse(&ok).unwrap();
            assert!(!value.has_duplicate_keys());
        };
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(run)
            .unwrap()
            .join()
            .unwrap();
    }
}
