//! The node tree: spans, tags, quoting style, helpers and JSON conversion.

use crate::{ScalarValue, YamlError};

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarStyle {
    /// Unquoted.
    Plain,
    /// `'single quoted'`.
    SingleQuoted,
    /// `"double quoted"`.
    DoubleQuoted,
    /// `|` block.
    Literal,
    /// `>` block.
    Folded,
}

/// A scalar: its text (after unquoting and escapes), style and resolved value.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    /// The scalar's text as the parser produced it (for `!!binary`, the decoded bytes).
    pub text: String,
    /// How it was written.
    pub style: ScalarStyle,
    /// What it resolves to under go-yaml v2's YAML 1.1 rules.
    pub value: ScalarValue,
}

/// The content of a node.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// Key/value pairs in document order, with merge keys expanded and
    /// duplicate keys resolved (the last occurrence wins, at the position of
    /// the first).
    Mapping(Vec<(Node, Node)>),
    /// Items in order.
    Sequence(Vec<Node>),
    /// A scalar.
    Scalar(Scalar),
}

/// A YAML node with its 1-based line in the file and its explicit tag.
///
/// Aliases are expanded: a node reached through an alias is a copy of the
/// anchored node and keeps the anchored node's lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What the node holds.
    pub kind: NodeKind,
    /// 1-based line of the node's first character in the file.
    pub line: usize,
    /// 1-based column of the node's first character.
    pub column: usize,
    /// The explicit tag, shortened (`!!str`, `!custom`), if one was written.
    pub tag: Option<String>,
}

impl Node {
    /// The value of `key` if this is a mapping holding a string key equal to it.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.get_pair(key).map(|(_, v)| v)
    }

    /// The key node and value node of `key` if this is a mapping holding a
    /// string key equal to it (the key node gives the key's line).
    #[must_use]
    pub fn get_pair(&self, key: &str) -> Option<(&Node, &Node)> {
        self.as_mapping()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, v)| (k, v))
    }

    /// Follows a path of string keys through nested mappings.
    #[must_use]
    pub fn get_path(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |node, key| node.get(key))
    }

    /// The text if this is a scalar that resolves to a string.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar(Scalar {
                text,
                value: ScalarValue::String,
                ..
            }) => Some(text),
            _ => None,
        }
    }

    /// The scalar if this is one.
    #[must_use]
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The resolved value if this is a scalar.
    #[must_use]
    pub fn scalar_value(&self) -> Option<ScalarValue> {
        self.as_scalar().map(|s| s.value)
    }

    /// The boolean if this is a scalar that resolves to one.
    #[must_use]
    pub fn as_bool(&self) -> Option<bool> {
        match self.scalar_value()? {
            ScalarValue::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The integer if this is a scalar that resolves to one fitting `i64`.
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        match self.scalar_value()? {
            ScalarValue::Int(i) => Some(i),
            _ => None,
        }
    }

    /// Whether this is a scalar that resolves to null.
    #[must_use]
    pub fn is_null(&self) -> bool {
        self.scalar_value() == Some(ScalarValue::Null)
    }

    /// The pairs if this is a mapping.
    #[must_use]
    pub fn as_mapping(&self) -> Option<&[(Node, Node)]> {
        match &self.kind {
            NodeKind::Mapping(pairs) => Some(pairs),
            _ => None,
        }
    }

    /// The items if this is a sequence.
    #[must_use]
    pub fn as_sequence(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Sequence(items) => Some(items),
            _ => None,
        }
    }

    /// Converts the tree to JSON the way sigs.k8s.io/yaml's `YAMLToJSON` does:
    /// keys become strings (`true`, `1`, `1.5`), values keep their resolved
    /// types. Mapping order is kept.
    ///
    /// # Errors
    /// [`YamlError::NotJson`] for a null key, a float key that is not finite,
    /// or a NaN/infinite float value (JSON has no form for them).
    pub fn to_json(&self) -> Result<serde_json::Value, YamlError> {
        use serde_json::Value;
        Ok(match &self.kind {
            NodeKind::Scalar(s) => match s.value {
                ScalarValue::Null => Value::Null,
                ScalarValue::Bool(b) => Value::Bool(b),
                ScalarValue::Int(i) => Value::from(i),
                ScalarValue::Uint(u) => Value::from(u),
                ScalarValue::Float(f) => match serde_json::Number::from_f64(f) {
                    Some(n) => Value::Number(n),
                    None => return Err(self.not_json("a NaN or infinite float")),
                },
                ScalarValue::String => Value::String(s.text.clone()),
            },
            NodeKind::Sequence(items) => {
                Value::Array(items.iter().map(Node::to_json).collect::<Result<_, _>>()?)
            }
            NodeKind::Mapping(pairs) => {
                let mut map = serde_json::Map::with_capacity(pairs.len());
                for (k, v) in pairs {
                    map.insert(k.json_key()?, v.to_json()?);
                }
                Value::Object(map)
            }
        })
    }

    fn json_key(&self) -> Result<String, YamlError> {
        let Some(s) = self.as_scalar() else {
            return Err(self.not_json("a non-scalar mapping key"));
        };
        Ok(match s.value {
            ScalarValue::String => s.text.clone(),
            ScalarValue::Bool(b) => b.to_string(),
            ScalarValue::Int(i) => i.to_string(),
            // sigs.k8s.io/yaml rejects uint64 keys.
            ScalarValue::Uint(_) => return Err(self.not_json("an unsigned 64-bit key")),
            ScalarValue::Float(f) if f.is_nan() => ".nan".to_owned(),
            ScalarValue::Float(f) if f.is_infinite() => {
                if f > 0.0 { ".inf" } else { "-.inf" }.to_owned()
            }
            ScalarValue::Float(f) => go_format_float32_g(f),
            ScalarValue::Null => return Err(self.not_json("a null mapping key")),
        })
    }

    fn not_json(&self, what: &str) -> YamlError {
        YamlError::NotJson {
            line: self.line,
            what: what.to_owned(),
        }
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest `f32` digits, in
/// exponent form when the exponent is below -4 or at least 6.
fn go_format_float32_g(f: f64) -> String {
    #[allow(clippy::cast_possible_truncation)]
    let f = f as f32;
    let sci = format!("{f:e}"); // e.g. "1.5e0", "-1e21"
    let Some((mantissa, exp)) = sci.split_once('e') else {
        return sci;
    };
    let Ok(exp) = exp.parse::<i32>() else {
        return sci;
    };
    if (-4..6).contains(&exp) {
        return format!("{f}");
    }
    format!(
        "{mantissa}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}
