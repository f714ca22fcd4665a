//! The environment-specific parts of a `results.jsonl` line: the `parsed`
//! object, the compatibility fields written at the top level, and the
//! `tool_interactions` entries.
//!
//! `parsed` and the compatibility fields are each environment's own types:
//! the environment serialises them into the record ([`EnvPart`],
//! [`CompatFields`]) and its report plugin reads them back as those types,
//! chosen by the run's environment. Nothing here knows an environment.
//! Readers are tolerant: every struct fills absent fields with defaults, so
//! records written by older versions or hand-built in tests read too.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// One tool call executed for a sample (`tool_interactions` entry).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ToolInteraction {
    /// 0-based model turn that made the call.
    pub turn: u32,
    /// Tool name as called.
    pub tool: String,
    /// The call's id.
    pub tool_call_id: String,
    /// Arguments: the parsed JSON, or the raw text when it is not JSON.
    pub arguments: Value,
    /// Wall time of the call in milliseconds.
    pub duration_ms: f64,
    /// Whether the call succeeded.
    pub ok: bool,
    /// Why it failed (`budget_exhausted`, `code: message`), when it did.
    pub error: Option<String>,
}

/// The `parsed` object of a result record: the environment's structured
/// record of the prediction, serialised by the environment as its own type
/// and kept as that JSON text (written and read back byte for byte).
#[derive(Debug, Clone)]
pub struct EnvPart(Box<RawValue>);

impl EnvPart {
    /// The environment's record `value`, serialised.
    ///
    /// # Panics
    /// When `value`'s serialisation fails, which a derived `Serialize` of
    /// structs with text keys never does: such a type is a bug.
    #[must_use]
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Self {
        match serde_json::value::to_raw_value(value) {
            Ok(raw) => EnvPart(raw),
            Err(e) => panic!(
                "an environment's `parsed` type ({}) does not serialise: {e}",
                std::any::type_name::<T>()
            ),
        }
    }

    /// The JSON text as written.
    #[must_use]
    pub fn json(&self) -> &str {
        self.0.get()
    }

    /// The record read as the environment's type `T`.
    ///
    /// # Errors
    /// The object does not read as a `T`.
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }

    /// The record as a JSON value.
    #[must_use]
    pub fn to_value(&self) -> Value {
        // Valid JSON by construction (serialised or read as JSON).
        serde_json::from_str(self.0.get()).unwrap_or(Value::Null)
    }
}

impl PartialEq for EnvPart {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Serialize for EnvPart {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for EnvPart {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(de).map(EnvPart)
    }
}

impl JsonSchema for EnvPart {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EnvPart".into()
    }

    fn json_schema(_gen: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The environment's structured record of the prediction; its shape is the environment's (see the per-environment schemas)."
        })
    }
}

/// The compatibility fields an environment writes at the top level of a
/// result record (flattened into it), in the order it wrote them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct CompatFields(pub Map<String, Value>);

impl CompatFields {
    /// The fields of the environment's type `value` (a struct).
    ///
    /// # Panics
    /// When `value` does not serialise as an object: such a type is a bug.
    #[must_use]
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Self {
        match serde_json::to_value(value) {
            Ok(Value::Object(map)) => CompatFields(map),
            other => panic!(
                "an environment's compatibility type ({}) must serialise as an object, not {other:?}",
                std::any::type_name::<T>()
            ),
        }
    }

    /// Whether no field is written.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The fields read as the environment's type `T`.
    ///
    /// # Errors
    /// They do not read as a `T`.
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(&Value::Object(self.0.clone()))
    }
}

/// Status and reason of the upstream parser (`parsed.upstream_parse`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ParseStatusRecord {
    /// `valid`, `invalid` or `no_answer`.
    pub status: String,
    /// Why it was not valid.
    pub reason: Option<String>,
}

/// Tolerant field readers for records written by other tools: a value of
/// the wrong type reads as absent instead of failing the line.
pub mod lenient {
    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    /// `T` when the value reads as one, else `None`.
    ///
    /// # Errors
    /// Only when the input is not JSON.
    pub fn option<'de, D, T>(de: D) -> Result<Option<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: DeserializeOwned,
    {
        let v = Value::deserialize(de)?;
        Ok(T::deserialize(v).ok())
    }

    /// `T` when the value reads as one, else its default.
    ///
    /// # Errors
    /// Only when the input is not JSON.
    pub fn or_default<'de, D, T>(de: D) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
        T: DeserializeOwned + Default,
    {
        Ok(option(de)?.unwrap_or_default())
    }

    /// The items of an array that read as `T` (others skipped); `None`
    /// when the value is not an array.
    ///
    /// # Errors
    /// Only when the input is not JSON.
    pub fn list<'de, D, T>(de: D) -> Result<Option<Vec<T>>, D::Error>
    where
        D: Deserializer<'de>,
        T: DeserializeOwned,
    {
        Ok(match Value::deserialize(de)? {
            Value::Array(items) => Some(
                items
                    .into_iter()
                    .filter_map(|i| T::deserialize(i).ok())
                    .collect(),
            ),
            _ => None,
        })
    }

    /// Python truthiness of any value (how upstream's report read flags).
    ///
    /// # Errors
    /// Only when the input is not JSON.
    pub fn truthy<'de, D: Deserializer<'de>>(de: D) -> Result<bool, D::Error> {
        Ok(match Value::deserialize(de)? {
            Value::Bool(b) => b,
            Value::String(s) => !s.is_empty(),
            Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            Value::Null => false,
        })
    }

    /// A value read with [`option`], as a type (for readers that take
    /// values one by one, such as a map visitor).
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct Opt<T>(pub Option<T>);

    impl<'de, T: DeserializeOwned> Deserialize<'de> for Opt<T> {
        fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
            option(de).map(Opt)
        }
    }

    /// A value read with [`list`], as a type.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct List<T>(pub Option<Vec<T>>);

    impl<'de, T: DeserializeOwned> Deserialize<'de> for List<T> {
        fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
            list(de).map(List)
        }
    }

    /// A value read with [`truthy`], as a type.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct Truthy(pub bool);

    impl<'de> Deserialize<'de> for Truthy {
        fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
            truthy(de).map(Truthy)
        }
    }

    impl<T> From<Opt<T>> for Option<T> {
        fn from(v: Opt<T>) -> Self {
            v.0
        }
    }

    impl<T> From<List<T>> for Option<Vec<T>> {
        fn from(v: List<T>) -> Self {
            v.0
        }
    }

    impl From<Truthy> for bool {
        fn from(v: Truthy) -> Self {
            v.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Parsed {
        label: String,
        confidence: Option<f64>,
    }

    #[test]
    fn env_parts_are_written_and_read_back_as_the_environments_type() {
        let p = Parsed {
            label: "Benign".into(),
            confidence: None,
        };
        let part = EnvPart::of(&p);
        assert_eq!(part.json(), r#"{"label":"Benign","confidence":null}"#);
        assert_eq!(part.read::<Parsed>().unwrap(), p);
        // Read from a line as written, byte for byte.
        let line = r#"{"parsed":{"label": "Benign" ,"confidence":0.5}}"#;
        #[derive(Deserialize)]
        struct Line {
            parsed: EnvPart,
        }
        let back: Line = serde_json::from_str(line).unwrap();
        assert_eq!(
            back.parsed.json(),
            r#"{"label": "Benign" ,"confidence":0.5}"#
        );
        assert_eq!(
            serde_json::to_string(&back.parsed).unwrap(),
            back.parsed.json()
        );
        assert_eq!(back.parsed.read::<Parsed>().unwrap().confidence, Some(0.5));
        assert!(back.parsed.read::<Vec<u8>>().is_err());
    }

    #[test]
    fn compat_fields_keep_the_order_written() {
        #[derive(Serialize)]
        struct Compat {
            predicted_label: String,
            confidence: Option<f64>,
        }
        let c = CompatFields::of(&Compat {
            predicted_label: "Malicious".into(),
            confidence: Some(0.5),
        });
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"{"predicted_label":"Malicious","confidence":0.5}"#
        );
        assert!(!c.is_empty());
        assert!(CompatFields::default().is_empty());
    }
}
