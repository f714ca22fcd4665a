//! Typed decoding of YAML nodes into Kubernetes fields, with Go's
//! `encoding/json` strictness (what kube-linter's universal deserializer does
//! after sigs.k8s.io/yaml turned the document into JSON).
//!
//! Rules reproduced here:
//! - field names match case-sensitively; unknown fields are ignored;
//! - `null` leaves the Go zero value (an absent pointer, an empty string,
//!   an empty list or map, a zero struct);
//! - a value of the wrong JSON type fails the whole document (a number where a
//!   string is expected, a string where an integer is expected, ...);
//! - integers must fit their Go type (`int32`, `int64`); a float with no
//!   fractional part is an integer (sigs.k8s.io/yaml writes `3.0` as `3`).
//!
//! Structs are declared with [`k8s_struct!`](crate::k8s_struct), which lists
//! every field once (Rust name, type, JSON key) and derives the decoder.

use std::collections::BTreeMap;
use std::fmt;

use crate::{Node, NodeKind, ScalarValue};

/// Why a document could not be decoded as a Kubernetes object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// 1-based line of the offending node.
    pub line: usize,
    /// Dotted path of the field (`spec.replicas`, `metadata.labels.app`).
    pub path: String,
    /// What was wrong.
    pub what: String,
}

impl DecodeError {
    /// An error at `node` for the field at `path`.
    #[must_use]
    pub fn at(node: &Node, path: &FieldPath, what: impl Into<String>) -> DecodeError {
        DecodeError {
            line: node.line,
            path: path.to_string(),
            what: what.into(),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "line {}: {}", self.line, self.what)
        } else {
            write!(f, "line {}: {}: {}", self.line, self.path, self.what)
        }
    }
}

/// The path of the field being decoded, for error messages.
#[derive(Debug, Clone, Default)]
pub struct FieldPath(Vec<String>);

impl FieldPath {
    /// Runs `f` with `segment` appended to the path.
    pub fn with<T>(&mut self, segment: impl Into<String>, f: impl FnOnce(&mut Self) -> T) -> T {
        self.0.push(segment.into());
        let out = f(self);
        self.0.pop();
        out
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for seg in &self.0 {
            if seg.starts_with('[') {
                f.write_str(seg)?;
            } else {
                if !first {
                    f.write_str(".")?;
                }
                f.write_str(seg)?;
            }
            first = false;
        }
        Ok(())
    }
}

/// A value that can be read from a YAML node under the Kubernetes JSON schema.
///
/// `Default` is the Go zero value: what an absent or `null` field leaves.
pub trait Decode: Sized + Default {
    /// Reads a non-null node.
    ///
    /// # Errors
    /// [`DecodeError`] when the node has the wrong type for the field.
    fn decode(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError>;

    /// Reads a node, `null` giving the zero value.
    ///
    /// # Errors
    /// As [`Decode::decode`].
    fn decode_nullable(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError> {
        if node.is_null() {
            Ok(Self::default())
        } else {
            Self::decode(node, path)
        }
    }
}

/// Describes a node's JSON type for error messages.
#[must_use]
pub fn json_type(node: &Node) -> String {
    match &node.kind {
        NodeKind::Mapping(_) => "an object".to_owned(),
        NodeKind::Sequence(_) => "an array".to_owned(),
        NodeKind::Scalar(s) => match s.value {
            ScalarValue::Null => "null".to_owned(),
            ScalarValue::Bool(b) => format!("the boolean {b}"),
            ScalarValue::Int(_) | ScalarValue::Uint(_) | ScalarValue::Float(_) => {
                format!("the number {}", s.text)
            }
            ScalarValue::String => format!("the string {:?}", s.text),
        },
    }
}

fn wrong_type(node: &Node, path: &FieldPath, expected: &str) -> DecodeError {
    DecodeError::at(
        node,
        path,
        format!("expected {expected}, found {}", json_type(node)),
    )
}

impl Decode for String {
    fn decode(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError> {
        node.as_str()
            .map(str::to_owned)
            .ok_or_else(|| wrong_type(node, path, "a string"))
    }
}

impl Decode for bool {
    fn decode(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError> {
        node.as_bool()
            .ok_or_else(|| wrong_type(node, path, "a boolean"))
    }
}

/// The integer value of a numeric scalar, accepting integral floats (JSON
/// has one number type; sigs.k8s.io/yaml writes `3.0` as `3`).
fn integer(node: &Node) -> Option<i128> {
    match node.scalar_value()? {
        ScalarValue::Int(i) => Some(i128::from(i)),
        ScalarValue::Uint(u) => Some(i128::from(u)),
        ScalarValue::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30 =>
        {
            #[allow(clippy::cast_possible_truncation)]
            Some(f as i128)
        }
        _ => None,
    }
}

macro_rules! decode_int {
    ($ty:ty, $name:literal) => {
        impl Decode for $ty {
            fn decode(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError> {
                let value = integer(node).ok_or_else(|| wrong_type(node, path, $name))?;
                <$ty>::try_from(value).map_err(|_| {
                    DecodeError::at(node, path, format!("{} does not fit {}", value, $name))
                })
            }
        }
    };
}
decode_int!(i32, "an int32");
decode_int!(i64, "an int64");

impl<T: Decode> Decode for Option<T> {
    fn decode(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError> {
        T::decode(node, path).map(Some)
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError> {
        let items = node
            .as_sequence()
            .ok_or_else(|| wrong_type(node, path, "an array"))?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| path.with(format!("[{i}]"), |p| T::decode_nullable(item, p)))
            .collect()
    }
}

/// A map keyed by strings (`labels`, `annotations`, `limits`), in key order.
impl<V: Decode> Decode for BTreeMap<String, V> {
    fn decode(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError> {
        let pairs = node
            .as_mapping()
            .ok_or_else(|| wrong_type(node, path, "an object"))?;
        let mut out = BTreeMap::new();
        for (k, v) in pairs {
            let key = json_key(k).ok_or_else(|| wrong_type(k, path, "a scalar key"))?;
            let value = path.with(key.clone(), |p| V::decode_nullable(v, p))?;
            out.insert(key, value);
        }
        Ok(out)
    }
}

/// A mapping key as sigs.k8s.io/yaml writes it into JSON (`1` → `"1"`,
/// `true` → `"true"`); `None` for keys JSON cannot hold.
fn json_key(key: &Node) -> Option<String> {
    let s = key.as_scalar()?;
    match s.value {
        ScalarValue::String => Some(s.text.clone()),
        ScalarValue::Bool(b) => Some(b.to_string()),
        ScalarValue::Int(i) => Some(i.to_string()),
        ScalarValue::Float(f) if f.is_finite() => Some(f.to_string()),
        ScalarValue::Uint(_) | ScalarValue::Float(_) | ScalarValue::Null => None,
    }
}

/// The pairs of a node that must be a JSON object.
///
/// # Errors
/// [`DecodeError`] when the node is not a mapping.
pub fn expect_object<'a>(
    node: &'a Node,
    path: &FieldPath,
) -> Result<&'a [(Node, Node)], DecodeError> {
    node.as_mapping()
        .ok_or_else(|| wrong_type(node, path, "an object"))
}

/// Decodes the field `key` of `pairs` (absent → zero value).
///
/// # Errors
/// The field's [`DecodeError`].
pub fn field<T: Decode>(
    pairs: &[(Node, Node)],
    key: &str,
    path: &mut FieldPath,
) -> Result<T, DecodeError> {
    match pairs.iter().find(|(k, _)| k.as_str() == Some(key)) {
        Some((_, v)) => path.with(key, |p| T::decode_nullable(v, p)),
        None => Ok(T::default()),
    }
}

/// The lines of the declared keys a mapping writes (first occurrence, as
/// [`field`] reads it), in declaration order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyLines(Vec<(&'static str, usize)>);

impl KeyLines {
    /// The declared `keys` present in `pairs`, with their key's line.
    #[must_use]
    pub fn of(pairs: &[(Node, Node)], keys: &[&'static str]) -> KeyLines {
        KeyLines(
            keys.iter()
                .filter_map(|key| {
                    pairs
                        .iter()
                        .find(|(k, _)| k.as_str() == Some(key))
                        .map(|(k, _)| (*key, k.line))
                })
                .collect(),
        )
    }

    /// The line of `key`, if the mapping writes it.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<usize> {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, line)| line)
    }
}

/// A Kubernetes `IntOrString` (`targetPort`, probe ports, PDB bounds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntOrString {
    /// A number.
    Int(i32),
    /// A string (a port name or a percentage).
    Str(String),
}

impl Default for IntOrString {
    fn default() -> Self {
        IntOrString::Int(0)
    }
}

impl Decode for IntOrString {
    fn decode(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError> {
        if let Some(s) = node.as_str() {
            return Ok(IntOrString::Str(s.to_owned()));
        }
        match i32::decode(node, path) {
            Ok(i) => Ok(IntOrString::Int(i)),
            Err(_) => Err(wrong_type(node, path, "an integer or a string")),
        }
    }
}

/// Declares a Kubernetes struct once: the Rust struct (every field public,
/// plus `line`, the mapping's 1-based line, 0 when the struct was absent) and
/// its [`Decode`] implementation.
///
/// ```ignore
/// k8s_struct! {
///     /// A container port.
///     pub struct ContainerPort {
///         /// `containerPort`.
///         container_port: i32 = "containerPort",
///     }
/// }
/// ```
macro_rules! k8s_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* $field:ident : $ty:ty = $key:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct $name {
            /// 1-based line of the mapping (0 when it was absent).
            pub line: usize,
            /// 1-based line of each declared key present in the mapping,
            /// so findings about a field can point at it.
            pub key_lines: $crate::k8s::decode::KeyLines,
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl $name {
            /// The line of the declared field `key` (its JSON key) when it
            /// is written in the mapping.
            #[must_use]
            #[allow(dead_code)]
            pub fn field_line(&self, key: &str) -> Option<usize> {
                self.key_lines.get(key)
            }
        }

        impl $crate::k8s::decode::Decode for $name {
            fn decode(
                node: &$crate::Node,
                path: &mut $crate::k8s::decode::FieldPath,
            ) -> Result<Self, $crate::k8s::decode::DecodeError> {
                #[allow(unused_variables)]
                let pairs = $crate::k8s::decode::expect_object(node, path)?;
                Ok(Self {
                    line: node.line,
                    key_lines: $crate::k8s::decode::KeyLines::of(pairs, &[$($key),*]),
                    $( $field: $crate::k8s::decode::field(pairs, $key, path)?, )*
                })
            }
        }
    };
}

pub(crate) use k8s_struct;

/// A Go `[]byte` field (Secret `data`, ConfigMap `binaryData`): JSON holds
/// it as standard base64, and `encoding/json` fails the document when the
/// text is not (`base64.StdEncoding`: padding required, `\r`/`\n` skipped,
/// non-zero trailing bits accepted). The text is kept as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Base64Bytes(pub String);

impl Decode for Base64Bytes {
    fn decode(node: &Node, path: &mut FieldPath) -> Result<Self, DecodeError> {
        let text = String::decode(node, path)?;
        if is_std_base64(&text) {
            Ok(Base64Bytes(text))
        } else {
            Err(DecodeError::at(
                node,
                path,
                "illegal base64 data (expected standard base64 with padding)",
            ))
        }
    }
}

/// Whether Go's `base64.StdEncoding.Decode` accepts `text`.
fn is_std_base64(text: &str) -> bool {
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|b| !matches!(b, b'\r' | b'\n'))
        .collect();
    if !bytes.len().is_multiple_of(4) {
        return false;
    }
    let alpha = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    let quanta: Vec<&[u8]> = bytes.chunks(4).collect();
    quanta.iter().enumerate().all(|(i, q)| {
        let last = i + 1 == quanta.len();
        match q {
            [a, b, c, d] if alpha(*a) && alpha(*b) => {
                (alpha(*c) && alpha(*d))
                    || (last && alpha(*c) && *d == b'=')
                    || (last && *c == b'=' && *d == b'=')
            }
            _ => false,
        }
    })
}
