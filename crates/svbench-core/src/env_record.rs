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

use std::borrow::Cow;

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

/// An environment's own value behind an [`EnvPart`] or [`CompatFields`]:
/// held as its type and serialised only when the record is written, so
/// scoring pays nothing for it.
trait Part: std::fmt::Debug + Send + Sync {
    /// The value as JSON text.
    fn to_raw(&self) -> Box<RawValue>;
    /// The value as JSON.
    fn to_json(&self) -> Value;
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn Part>;
}

impl<T: Serialize + Clone + std::fmt::Debug + Send + Sync + 'static> Part for T {
    fn to_raw(&self) -> Box<RawValue> {
        match serde_json::value::to_raw_value(self) {
            Ok(raw) => raw,
            Err(e) => panic!(
                "an environment's record type ({}) does not serialise: {e}",
                std::any::type_name::<T>()
            ),
        }
    }

    fn to_json(&self) -> Value {
        match serde_json::to_value(self) {
            Ok(v) => v,
            Err(e) => panic!(
                "an environment's record type ({}) does not serialise: {e}",
                std::any::type_name::<T>()
            ),
        }
    }

    fn clone_box(&self) -> Box<dyn Part> {
        Box::new(self.clone())
    }
}

/// What an [`EnvPart`] holds: the environment's value, or the JSON text
/// read from a record.
#[derive(Debug)]
enum PartRepr {
    Typed(Box<dyn Part>),
    Raw(Box<RawValue>),
}

impl Clone for PartRepr {
    fn clone(&self) -> Self {
        match self {
            PartRepr::Typed(p) => PartRepr::Typed(p.clone_box()),
            PartRepr::Raw(r) => PartRepr::Raw(r.clone()),
        }
    }
}

/// The `parsed` object of a result record: the environment's structured
/// record of the prediction, its own type. Written as that type serialises
/// (a derived `Serialize` of structs with text keys, which never fails);
/// read back as the JSON text of the line, byte for byte.
#[derive(Debug, Clone)]
pub struct EnvPart(PartRepr);

impl EnvPart {
    /// The environment's record `value`.
    #[must_use]
    pub fn of<T: Serialize + Clone + std::fmt::Debug + Send + Sync + 'static>(value: T) -> Self {
        EnvPart(PartRepr::Typed(Box::new(value)))
    }

    /// The JSON text (as written, for a record read back).
    #[must_use]
    pub fn json(&self) -> Cow<'_, str> {
        match &self.0 {
            PartRepr::Typed(p) => Cow::Owned(p.to_raw().get().to_string()),
            PartRepr::Raw(r) => Cow::Borrowed(r.get()),
        }
    }

    /// The record read as the environment's type `T`.
    ///
    /// # Errors
    /// The object does not read as a `T`.
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.json())
    }

    /// The record as a JSON value.
    #[must_use]
    pub fn to_value(&self) -> Value {
        match &self.0 {
            PartRepr::Typed(p) => p.to_json(),
            // Valid JSON by construction (read as JSON).
            PartRepr::Raw(r) => serde_json::from_str(r.get()).unwrap_or(Value::Null),
        }
    }
}

impl PartialEq for EnvPart {
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json()
    }
}

impl Serialize for EnvPart {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            PartRepr::Typed(p) => p.to_raw().serialize(s),
            PartRepr::Raw(r) => r.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for EnvPart {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(de).map(|r| EnvPart(PartRepr::Raw(r)))
    }
}

impl JsonSchema for EnvPart {
    fn schema_name() -> Cow<'static, str> {
        "EnvPart".into()
    }

    fn json_schema(_gen: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The environment's structured record of the prediction; its shape is the environment's (see the per-environment schemas)."
        })
    }
}

/// What [`CompatFields`] holds: the environment's value, or the keys read
/// from a record.
#[derive(Debug)]
enum CompatRepr {
    Typed(Box<dyn Part>),
    Map(Map<String, Value>),
}

impl Clone for CompatRepr {
    fn clone(&self) -> Self {
        match self {
            CompatRepr::Typed(p) => CompatRepr::Typed(p.clone_box()),
            CompatRepr::Map(m) => CompatRepr::Map(m.clone()),
        }
    }
}

/// The compatibility fields an environment writes at the top level of a
/// result record (flattened into it): its own struct, written as its
/// fields in order; read back as the keys no other field takes.
#[derive(Debug, Clone)]
pub struct CompatFields(CompatRepr);

impl Default for CompatFields {
    fn default() -> Self {
        CompatFields(CompatRepr::Map(Map::new()))
    }
}

impl CompatFields {
    /// The fields of the environment's type `value` (a struct).
    #[must_use]
    pub fn of<T: Serialize + Clone + std::fmt::Debug + Send + Sync + 'static>(value: T) -> Self {
        CompatFields(CompatRepr::Typed(Box::new(value)))
    }

    /// The fields, by key in the order written.
    ///
    /// # Panics
    /// When the environment's type does not serialise as an object: such a
    /// type is a bug.
    #[must_use]
    pub fn to_map(&self) -> Map<String, Value> {
        match &self.0 {
            CompatRepr::Map(m) => m.clone(),
            CompatRepr::Typed(p) => match p.to_json() {
                Value::Object(m) => m,
                other => panic!("compatibility fields must serialise as an object, not {other}"),
            },
        }
    }

    /// Whether no field is written.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        match &self.0 {
            CompatRepr::Map(m) => m.is_empty(),
            CompatRepr::Typed(_) => self.to_map().is_empty(),
        }
    }

    /// The fields read as the environment's type `T`.
    ///
    /// # Errors
    /// They do not read as a `T`.
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(&Value::Object(self.to_map()))
    }
}

impl PartialEq for CompatFields {
    fn eq(&self, other: &Self) -> bool {
        self.to_map() == other.to_map()
    }
}

impl Serialize for CompatFields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            CompatRepr::Map(m) => m.serialize(s),
            CompatRepr::Typed(_) => self.to_map().serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for CompatFields {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        Map::<String, Value>::deserialize(de).map(|m| CompatFields(CompatRepr::Map(m)))
    }
}

impl JsonSchema for CompatFields {
    fn schema_name() -> Cow<'static, str> {
        "CompatFields".into()
    }

    fn json_schema(_gen: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "The environment's compatibility fields (see the per-environment schemas)."
        })
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

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
        let part = EnvPart::of(p.clone());
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
        #[derive(Debug, Clone, Serialize)]
        struct Compat {
            predicted_label: String,
            confidence: Option<f64>,
        }
        let c = CompatFields::of(Compat {
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
