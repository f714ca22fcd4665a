//! Emulation of CPython's `json.loads` (E1 §2.2.1) and of the Python
//! built-ins upstream applies to its results (`float()`, `str()`,
//! `str.strip()`).
//!
//! Dialect, as CPython 3.11's C scanner: literals `NaN`, `Infinity` and
//! `-Infinity` are numbers; float literals that overflow become ±inf;
//! integers have arbitrary size (up to CPython's 4,300-digit conversion
//! limit, beyond which `json.loads` raises); duplicate keys keep the last
//! value (at the first key's position, as a Python `dict`); lone surrogate
//! escapes are accepted (stored as U+FFFD); only space, tab, LF and CR are
//! whitespace; raw control characters in strings are rejected.

use std::borrow::Cow;

use super::lexer::{token_f64, Lexer, NumberToken};
use super::reader::{
    has_duplicate_key, read_document, read_object_document, variant_constructors, Dialect,
};
use super::{JsonError, JsonErrorKind, PYTHON_MAX_DEPTH};

pub use super::pyfloat::{py_float, py_float_str, pydantic_float_str, PyFloatError};
pub use super::pystr::{py_isspace, py_str, py_strip};

/// CPython's default `sys.get_int_max_str_digits()`.
const INT_MAX_STR_DIGITS: usize = 4300;

/// A value as `json.loads` returns it.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue<'a> {
    /// `None` (JSON `null`).
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An `int` of any size.
    Int(PyInt<'a>),
    /// A `float`, including `nan` and ±`inf`.
    Float(f64),
    /// A `str`.
    Str(Cow<'a, str>),
    /// A `list`.
    List(Vec<PyValue<'a>>),
    /// A `dict`.
    Dict(PyDict<'a>),
}

impl<'a> PyValue<'a> {
    /// The dict, if this is one.
    pub fn as_dict(&self) -> Option<&PyDict<'a>> {
        match self {
            PyValue::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            PyValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Python's type name (`NoneType`, `bool`, `int`, `float`, `str`, `list`,
    /// `dict`).
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Str(_) => "str",
            PyValue::List(_) => "list",
            PyValue::Dict(_) => "dict",
        }
    }
}

/// A Python `int` parsed from JSON, kept as its decimal text so that any size
/// is representable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PyInt<'a> {
    text: &'a str,
}

impl<'a> PyInt<'a> {
    /// The integer as written in the JSON text (`-?(0|[1-9][0-9]*)`).
    pub fn as_text(&self) -> &'a str {
        self.text
    }

    /// Python's `float(i)`: correctly rounded, `None` where Python raises
    /// `OverflowError` (magnitude ≥ 2^1024 after rounding).
    pub fn to_f64(&self) -> Option<f64> {
        let v = token_f64(self.text);
        // `-0` is the int 0, whose float is +0.0.
        v.is_finite().then_some(v + 0.0)
    }

    /// The value, if it fits an i64.
    pub fn to_i64(&self) -> Option<i64> {
        self.text.parse().ok()
    }
}

/// A Python `dict` from `json.loads`: unique keys in first-insertion order,
/// each with the last value given for it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PyDict<'a> {
    items: Vec<(Cow<'a, str>, PyValue<'a>)>,
}

impl<'a> PyDict<'a> {
    /// An empty dict.
    pub fn new() -> Self {
        PyDict { items: Vec::new() }
    }

    /// Builds a dict from `(key, value)` pairs in order, as Python's `dict()`
    /// does: a repeated key keeps its first position and its last value.
    pub fn from_pairs(pairs: Vec<(Cow<'a, str>, PyValue<'a>)>) -> Self {
        PyDict {
            items: dedupe_last_wins(pairs),
        }
    }

    /// `d.get(key)`.
    pub fn get(&self, key: &str) -> Option<&PyValue<'a>> {
        self.items
            .iter()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| v)
    }

    /// `key in d`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Items in dict order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &PyValue<'a>)> {
        self.items.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// `len(d)`.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// `not d`.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// `json.loads(text)`; `Err` wherever CPython raises (`JSONDecodeError`, the
/// integer digit limit's `ValueError`, or, as [`JsonErrorKind::TooDeep`],
/// `RecursionError` for nesting deeper than [`PYTHON_MAX_DEPTH`]).
///
/// The reader keeps open containers on a heap stack, not the call stack, so
/// any depth of input is safe; like CPython's scanner it reports the
/// too-deep `[`/`{` before reading what follows it.
pub fn loads(text: &str) -> Result<PyValue<'_>, JsonError> {
    read_document::<Python>(text)
}

/// `json.loads(text)` when it returns a dict; `None` when it raises or
/// returns anything else.
pub fn loads_dict(text: &str) -> Option<PyDict<'_>> {
    read_object_document::<Python>(text)
}

/// The Python dialect of the shared container reader.
struct Python;

impl<'a> Dialect<'a> for Python {
    type Value = PyValue<'a>;
    type Object = PyDict<'a>;
    const MAX_DEPTH: usize = PYTHON_MAX_DEPTH;

    variant_constructors!(PyValue { null => None, bool => Bool, string => Str, object => Dict });

    fn number(lx: &Lexer<'a>, token: NumberToken<'a>) -> Result<PyValue<'a>, JsonError> {
        if !token.integer {
            return Ok(PyValue::Float(token_f64(token.text)));
        }
        let digits = token.text.len() - usize::from(token.text.starts_with('-'));
        if digits > INT_MAX_STR_DIGITS {
            return Err(lx.error(JsonErrorKind::IntegerTooLong));
        }
        Ok(PyValue::Int(PyInt { text: token.text }))
    }

    fn extra_literal(lx: &mut Lexer<'a>) -> Option<PyValue<'a>> {
        let value = match lx.peek()? {
            b'-' if lx.eat(b"-Infinity") => f64::NEG_INFINITY,
            b'N' if lx.eat(b"NaN") => f64::NAN,
            b'I' if lx.eat(b"Infinity") => f64::INFINITY,
            _ => return None,
        };
        Some(PyValue::Float(value))
    }

    fn array(items: Vec<PyValue<'a>>, _marked: bool) -> (PyValue<'a>, bool) {
        (PyValue::List(items), false)
    }

    fn object(members: Vec<(Cow<'a, str>, PyValue<'a>)>, _marked: bool) -> (PyValue<'a>, bool) {
        (PyValue::Dict(PyDict::from_pairs(members)), false)
    }
}

/// Python `dict` insertion semantics: the first position, the last value.
fn dedupe_last_wins<'a>(
    pairs: Vec<(Cow<'a, str>, PyValue<'a>)>,
) -> Vec<(Cow<'a, str>, PyValue<'a>)> {
    const LINEAR_MAX: usize = 12;
    if pairs.len() <= LINEAR_MAX {
        if !has_duplicate_key(&pairs) {
            return pairs;
        }
        let mut out: Vec<(Cow<'a, str>, PyValue<'a>)> = Vec::with_capacity(pairs.len());
        for (k, v) in pairs {
            match out.iter_mut().find(|(other, _)| *other == k) {
                Some(slot) => slot.1 = v,
                None => out.push((k, v)),
            }
        }
        return out;
    }
    // Large dicts: group equal keys by a stable sort of positions.
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&a, &b| pairs[a].0.cmp(&pairs[b].0));
    let mut slots: Vec<Option<(Cow<'a, str>, PyValue<'a>)>> = pairs.into_iter().map(Some).collect();
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && key_of(&slots, order[end]) == key_of(&slots, order[start]) {
            end += 1;
        }
        if end - start > 1 {
            // Positions are ascending within the group (stable sort).
            let first = order[start];
            let last = order[end - 1];
            let last_value = slots[last].take().map(|(_, v)| v);
            for &pos in &order[start + 1..end - 1] {
                slots[pos] = None;
            }
            if let (Some(slot), Some(v)) = (slots[first].as_mut(), last_value) {
                slot.1 = v;
            }
        }
        start = end;
    }
    slots.into_iter().flatten().collect()
}

fn key_of<'s>(slots: &'s [Option<(Cow<'_, str>, PyValue<'_>)>], pos: usize) -> Option<&'s str> {
    slots[pos].as_ref().map(|(k, _)| k.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dict(text: &str) -> PyDict<'_> {
        loads_dict(text).unwrap_or_else(|| panic!("not a dict: {text}"))
    }

    #[test]
    fn python_literals() {
        assert!(matches!(loads("NaN"), Ok(PyValue::Float(f)) if f.is_nan()));
        assert_eq!(loads("Infinity"), Ok(PyValue::Float(f64::INFINITY)));
        assert_eq!(loads(" -Infinity "), Ok(PyValue::Float(f64::NEG_INFINITY)));
        assert_eq!(loads("1e400"), Ok(PyValue::Float(f64::INFINITY)));
        assert_eq!(loads("-1e400"), Ok(PyValue::Float(f64::NEG_INFINITY)));
        assert_eq!(loads("null"), Ok(PyValue::None));
        assert_eq!(loads("true"), Ok(PyValue::Bool(true)));
        for bad in [
            "-NaN",
            "nan",
            "infinity",
            "+Infinity",
            "-Inf",
            "NaNx",
            "None",
            "True",
        ] {
            assert!(loads(bad).is_err(), "accepted {bad:?}");
        }
    }

    #[test]
    fn integers_of_any_size() {
        let big = "1".repeat(4300);
        match loads(&big) {
            Ok(PyValue::Int(i)) => {
                assert_eq!(i.as_text(), big);
                assert_eq!(i.to_f64(), None, "float(int) overflows");
                assert_eq!(i.to_i64(), None);
            }
            other => panic!("{other:?}"),
        }
        let too_long = "1".repeat(4301);
        assert_eq!(
            loads(&too_long).map_err(|e| e.kind),
            Err(JsonErrorKind::IntegerTooLong)
        );
        let neg = format!("-{big}");
        assert!(matches!(loads(&neg), Ok(PyValue::Int(_))));
        match loads("-0") {
            Ok(PyValue::Int(i)) => {
                let f = i.to_f64().unwrap();
                assert!(f == 0.0 && f.is_sign_positive());
            }
            other => panic!("{other:?}"),
        }
        match loads("12345678901234567890123") {
            Ok(PyValue::Int(i)) => assert_eq!(i.to_f64(), Some(1.2345678901234568e22)),
            other => panic!("{other:?}"),
        }
        // 2**1024 - 2**970 is the halfway point that rounds up to 2**1024.
        let max_ok = "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368";
        match loads(max_ok) {
            Ok(PyValue::Int(i)) => assert_eq!(i.to_f64(), Some(f64::MAX)),
            other => panic!("{other:?}"),
        }
        let halfway = "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792";
        match loads(halfway) {
            Ok(PyValue::Int(i)) => assert_eq!(i.to_f64(), None),
            other => panic!("{other:?}"),
        }
        assert_eq!(loads("1.5"), Ok(PyValue::Float(1.5)));
        assert_eq!(loads("1E2"), Ok(PyValue::Float(100.0)));
    }

    #[test]
    fn duplicate_keys_keep_last_value_at_first_position() {
        let d = dict(r#"{"a":1,"b":2,"a":3}"#);
        let keys: Vec<&str> = d.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "b"]);
        assert!(matches!(d.get("a"), Some(PyValue::Int(i)) if i.as_text() == "3"));

        let mut text = String::from("{");
        for i in 0..30 {
            text.push_str(&format!("\"k{i}\":{i},"));
        }
        text.push_str("\"k3\":\"x\",\"k0\":\"y\",\"k3\":\"z\"}");
        let d = dict(&text);
        assert_eq!(d.len(), 30);
        assert_eq!(d.iter().next().map(|(k, _)| k), Some("k0"));
        assert_eq!(d.get("k0").and_then(PyValue::as_str), Some("y"));
        assert_eq!(d.get("k3").and_then(PyValue::as_str), Some("z"));
        assert_eq!(d.iter().nth(3).map(|(k, _)| k), Some("k3"));
    }

    #[test]
    fn strings_like_cpython() {
        assert_eq!(
            loads(r#""\ud800""#)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned)),
            Some("\u{fffd}".into())
        );
        assert!(loads("\"a\u{1}\"").is_err());
        assert!(loads("\"\u{7f}\"").is_ok());
        assert!(loads(r#""\U0041""#).is_err());
        assert_eq!(
            loads(r#""\uDEAD""#)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned)),
            Some("\u{fffd}".into())
        );
    }

    #[test]
    fn whitespace_and_structure() {
        assert!(loads(" \t\r\n{\"a\": [1, 2]}\n ").is_ok());
        for bad in [
            "\u{c}1",
            "\u{b}1",
            "\u{feff}1",
            "\u{a0}1",
            "[1,]",
            "{\"a\":1,}",
            "{'a':1}",
            "01",
            "1.",
            "1e",
            "1 2",
            "",
        ] {
            assert!(loads(bad).is_err(), "accepted {bad:?}");
        }
        let deep = format!(
            "{}{}",
            "[".repeat(PYTHON_MAX_DEPTH + 1),
            "]".repeat(PYTHON_MAX_DEPTH + 1)
        );
        assert_eq!(
            loads(&deep).map_err(|e| e.kind),
            Err(JsonErrorKind::TooDeep)
        );
        assert!(loads_dict("[{}]").is_none());
        assert!(loads_dict("{}").is_some_and(|d| d.is_empty()));
    }

    /// `[[…]]` and `{"a":{"a":…0}}` nested `depth` levels.
    fn nested(depth: usize) -> [String; 2] {
        [
            format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
            format!("{}0{}", "{\"a\":".repeat(depth), "}".repeat(depth)),
        ]
    }

    #[test]
    fn nesting_as_deep_as_cpython_under_verifiers() {
        // Issue 14 item 9: CPython 3.12 parses these; the last is its limit.
        for depth in [501, 900, PYTHON_MAX_DEPTH] {
            for text in nested(depth) {
                assert!(loads(&text).is_ok(), "depth {depth}: {}", &text[..8]);
            }
        }
        for text in nested(PYTHON_MAX_DEPTH + 1) {
            let err = loads(&text).unwrap_err();
            assert_eq!(err.kind, JsonErrorKind::TooDeep);
        }
        // The too-deep `[` is reported before anything after it is read, as
        // CPython raises RecursionError before the syntax error.
        let text = format!("{}x", "[".repeat(PYTHON_MAX_DEPTH + 1));
        assert_eq!(
            loads(&text).unwrap_err(),
            JsonError {
                offset: PYTHON_MAX_DEPTH,
                kind: JsonErrorKind::TooDeep
            }
        );
        let text = format!("{}x", "[".repeat(PYTHON_MAX_DEPTH));
        assert_eq!(
            loads(&text).unwrap_err().kind,
            JsonErrorKind::UnexpectedChar
        );
        // Containers beside each other do not add up.
        let wide = format!(
            "[{}]",
            vec![nested(PYTHON_MAX_DEPTH - 1)[0].clone(); 3].join(",")
        );
        assert!(loads(&wide).is_ok());
    }

    #[test]
    fn nesting_never_exhausts_the_stack() {
        // Rust's default for spawned threads (tokio's blocking pool too).
        const STACK: usize = 2 << 20;
        // 100,000 levels, closed, unclosed and mixed, on a thread with a
        // default-size stack: the reader keeps no recursion.
        let run = || {
            let mut texts = nested(100_000).to_vec();
            texts.push("[".repeat(100_000));
            texts.push("[{\"a\":".repeat(50_000));
            for text in &texts {
                assert_eq!(loads(text).unwrap_err().kind, JsonErrorKind::TooDeep);
                assert!(loads_dict(text).is_none());
            }
            // A value at the limit can be compared and dropped (both recurse:
            // about 1 MiB and 0.5 MiB of stack in a debug build).
            for text in nested(PYTHON_MAX_DEPTH) {
                let value = loads(&text).unwrap();
                assert!(value == value);
            }
        };
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(run)
            .unwrap()
            .join()
            .unwrap();
    }
}
