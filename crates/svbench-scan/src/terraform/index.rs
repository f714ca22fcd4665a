//! The module view's `index` (project extension): the lookups the policies
//! would otherwise do by scanning every block, computed once per file.
//!
//! Policies run once per block, and a lookup that walks `input.module` from
//! each block costs blocks × resources: TF_001–TF_003 looked for each
//! bucket's companions (`aws_s3_bucket_versioning` … whose `bucket` names it)
//! that way, and 2,000 buckets took five minutes. Here each relation is one
//! pass over the file, and a policy reads it by key:
//!
//! - `ref_targets`: `{ref: [address, …]}` — for every reference string found
//!   in a `refs` list anywhere in a resource, variable or data config, the
//!   addresses (of resources, variables and data sources) it refers to, as
//!   `tf.refers_to` defines it: the ref is the address or continues it with
//!   `.` or `[` (`aws_s3_bucket.b.id` → `aws_s3_bucket.b`);
//! - `bucket_referrers`: `{address: {type: [resource address, …]}}` — the
//!   resources of each type whose `bucket` argument refers to the block at
//!   `address`;
//! - `bucket_names`: `{name: {type: [resource address, …]}}` — the resources
//!   of each type whose `bucket` argument is the string `name`. Keyed by
//!   type so that a bucket looking for its `aws_s3_bucket_versioning` does
//!   not walk every other resource sharing its name (2,000 buckets with one
//!   `bucket` name took 106 s when each walked all 2,000);
//! - `world_cidrs`: `{address: {pointer: [world, …]}}` — for every argument
//!   whose name contains `cidr`, at any depth of a resource's config (JSON
//!   Pointer into the config), the worlds (`0.0.0.0/0`, `::/0`) its ranges
//!   cover together (see `cidr.rs`); arguments covering neither are left out.
//!
//! - `name_fields`: `{name: {type: {"values": {field: {text: true}},
//!   "unknown": {field: true}}}}` — for the same companions as
//!   `bucket_names`, the values their arguments take together: each scalar
//!   argument (`acl`) and each scalar argument of a nested block
//!   (`versioning_configuration/status`), as text (`false` and `"false"`
//!   alike; numbers as JSON text), and the fields some companion sets to a
//!   value the host could not evaluate. Every bucket of a name shares its
//!   companions, so a bucket's rules look a value up here instead of
//!   walking them: 1,000 buckets sharing a name with 1,000 ACLs of that name
//!   would otherwise cost a million steps. (Companions by reference are
//!   walked: each is a pair of `bucket_referrers`, read once.)
//! - `open_statements`: `{address: true}` — the `aws_iam_policy_document`
//!   data sources with a statement allowing every action on every resource
//!   (TF_008's test, computed once per document: 1,000 policies referring to
//!   one 1,000-statement document would otherwise cost a million steps).
//!
//! Lists are sorted by address (the order `input.module.resources` iterates
//! in) and hold each address once.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{json, Map, Value};

use super::cidr::worlds;
use super::{pointer_token, TfBlock, TfBlockType};
use crate::{Deadline, TimeBudgetExceeded};

/// Builds the index of `blocks` (resources, variables and data sources).
pub(super) fn build<'a>(
    blocks: impl Iterator<Item = &'a TfBlock> + Clone,
    deadline: &Deadline,
) -> Result<Value, TimeBudgetExceeded> {
    let targets = Targets::new(blocks.clone().map(|b| b.address.as_str()));
    let mut ref_targets: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut bucket_referrers: ByType<'_> = BTreeMap::new();
    let mut bucket_names: ByType<'_> = BTreeMap::new();
    let mut world_cidrs = Map::new();
    let mut name_fields: FieldsByType<'_> = BTreeMap::new();
    let mut open_statements = Map::new();
    let mut stack: Vec<&Value> = Vec::new();
    for block in blocks {
        deadline.check()?;
        // Every `refs` list of the config, at any depth.
        stack.clear();
        stack.push(&block.config);
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(map) => {
                    for r in refs_of(map) {
                        if !ref_targets.contains_key(r) {
                            deadline.check()?;
                            ref_targets.insert(r, targets.of(r));
                        }
                    }
                    stack.extend(map.values());
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        let ty = block.r#type.as_deref().unwrap_or_default();
        if block.block_type == TfBlockType::Data
            && ty == "aws_iam_policy_document"
            && opens_everything(&block.config)
        {
            open_statements.insert(block.address.clone(), Value::Bool(true));
        }
        if block.block_type != TfBlockType::Resource {
            continue;
        }
        match block.config.get("bucket") {
            Some(Value::String(name)) => {
                bucket_names
                    .entry(name)
                    .or_default()
                    .entry(ty)
                    .or_default()
                    .insert(&block.address);
                name_fields
                    .entry(name)
                    .or_default()
                    .entry(ty)
                    .or_default()
                    .merge(fields_of(&block.config));
            }
            Some(Value::Object(map)) => {
                for r in refs_of(map) {
                    for target in ref_targets.get(r).into_iter().flatten() {
                        deadline.check()?;
                        bucket_referrers
                            .entry(target)
                            .or_default()
                            .entry(ty)
                            .or_default()
                            .insert(&block.address);
                    }
                }
            }
            _ => {}
        }
        let mut cidrs = Map::new();
        let mut pointer = String::new();
        cidr_arguments(&block.config, &mut pointer, &mut cidrs);
        if !cidrs.is_empty() {
            world_cidrs.insert(block.address.clone(), Value::Object(cidrs));
        }
    }
    Ok(json!({
        "ref_targets": to_json(ref_targets),
        "bucket_referrers": by_type_json(bucket_referrers),
        "bucket_names": by_type_json(bucket_names),
        "world_cidrs": world_cidrs,
        "name_fields": fields_json(name_fields),
        "open_statements": open_statements,
    }))
}

/// `{key: {type: fields}}`.
type FieldsByType<'a> = BTreeMap<&'a str, BTreeMap<&'a str, Fields>>;

/// The values the arguments of a group of companions take (see the module
/// docs): `values[field]` the distinct texts, `unknown` the fields some
/// companion sets to a value that could not be evaluated.
#[derive(Debug, Default)]
struct Fields {
    values: BTreeMap<String, BTreeSet<String>>,
    unknown: BTreeSet<String>,
}

impl Fields {
    fn merge(&mut self, other: Fields) {
        for (field, texts) in other.values {
            self.values.entry(field).or_default().extend(texts);
        }
        self.unknown.extend(other.unknown);
    }
}

/// The fields of one companion's config: its scalar arguments (`acl`) and
/// the scalar arguments of its nested blocks (`versioning_configuration/status`);
/// strings as written, booleans and numbers as text (Terraform converts
/// `"false"` and `false` alike). The `bucket` argument itself is left out.
fn fields_of(config: &Value) -> Fields {
    let mut fields = Fields::default();
    let Value::Object(map) = config else {
        return fields;
    };
    for (key, value) in map {
        if key == "bucket" {
            continue;
        }
        match value {
            Value::Array(blocks) => {
                for block in blocks {
                    let Value::Object(inner) = block else {
                        continue;
                    };
                    for (inner_key, inner_value) in inner {
                        record(&mut fields, &format!("{key}/{inner_key}"), inner_value);
                    }
                }
            }
            other => record(&mut fields, key, other),
        }
    }
    fields
}

fn record(fields: &mut Fields, field: &str, value: &Value) {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Object(_) if value.get("unknown") == Some(&Value::Bool(true)) => {
            fields.unknown.insert(field.to_owned());
            return;
        }
        _ => return,
    };
    fields
        .values
        .entry(field.to_owned())
        .or_default()
        .insert(text);
}

fn fields_json(map: FieldsByType<'_>) -> Value {
    let mut out = Map::new();
    for (key, types) in map {
        let mut by_type = Map::new();
        for (ty, fields) in types {
            let values: Map<String, Value> = fields
                .values
                .into_iter()
                .map(|(field, texts)| {
                    let set: Map<String, Value> =
                        texts.into_iter().map(|t| (t, Value::Bool(true))).collect();
                    (field, Value::Object(set))
                })
                .collect();
            let unknown: Map<String, Value> = fields
                .unknown
                .into_iter()
                .map(|f| (f, Value::Bool(true)))
                .collect();
            by_type.insert(ty.to_owned(), json!({"values": values, "unknown": unknown}));
        }
        out.insert(key.to_owned(), Value::Object(by_type));
    }
    Value::Object(out)
}

/// Whether an `aws_iam_policy_document`'s statements include one allowing
/// every action on every resource, as TF_008's `tf.allows_everything`
/// judges a statement `{Effect: effect (default Allow), Action: actions
/// (default []), Resource: resources (default [])}`: the effect `Allow` or
/// unknown, actions and resources each `"*"`, unknown, or a list holding
/// `"*"` or an unknown element.
fn opens_everything(config: &Value) -> bool {
    let Some(Value::Array(statements)) = config.get("statement") else {
        return false;
    };
    statements.iter().any(|s| {
        s.is_object()
            && s.get("effect")
                .is_none_or(|e| e == "Allow" || is_unknown(e))
            && s.get("actions").is_some_and(wildcard)
            && s.get("resources").is_some_and(wildcard)
    })
}

fn is_unknown(value: &Value) -> bool {
    value.get("unknown") == Some(&Value::Bool(true))
}

fn wildcard(value: &Value) -> bool {
    let item = |v: &Value| v == "*" || is_unknown(v);
    match value {
        Value::Array(items) => items.iter().any(item),
        other => item(other),
    }
}

/// `{key: {type: {address}}}`.
type ByType<'a> = BTreeMap<&'a str, BTreeMap<&'a str, BTreeSet<&'a str>>>;

fn by_type_json(map: ByType<'_>) -> Value {
    Value::Object(
        map.into_iter()
            .map(|(k, types)| (k.to_owned(), to_json(types)))
            .collect(),
    )
}

/// Records in `out`, under their JSON Pointers, the worlds covered by every
/// argument of `value` (at any depth) whose name contains `cidr`. `pointer`
/// is `value`'s own pointer; each level pushes and pops its token, so the
/// walk costs the size of the config.
fn cidr_arguments(value: &Value, pointer: &mut String, out: &mut Map<String, Value>) {
    let at = pointer.len();
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                pointer.push('/');
                pointer.push_str(&pointer_token(key));
                if key.contains("cidr") {
                    let covered = worlds(item);
                    if !covered.is_empty() {
                        out.insert(pointer.clone(), Value::from(covered));
                    }
                }
                cidr_arguments(item, pointer, out);
                pointer.truncate(at);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if item.is_object() || item.is_array() {
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    cidr_arguments(item, pointer, out);
                    pointer.truncate(at);
                }
            }
        }
        _ => {}
    }
}

/// The strings of an object's `refs` list (a non-literal, or a literal
/// object that happens to have the same shape: `tf.refers_to` reads both).
fn refs_of(map: &Map<String, Value>) -> impl Iterator<Item = &str> {
    map.get("refs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

fn to_json(map: BTreeMap<&str, BTreeSet<&str>>) -> Value {
    Value::Object(
        map.into_iter()
            .map(|(k, v)| (k.to_owned(), Value::from(v.into_iter().collect::<Vec<_>>())))
            .collect(),
    )
}

/// The known addresses, for finding which of them a reference names.
struct Targets<'a> {
    addresses: HashSet<&'a str>,
    /// Distinct address lengths: a prefix is only looked up (hashed) when an
    /// address of its length exists, so a long reference with many dots
    /// costs one comparison per dot, not one hash of its prefix per dot.
    lengths: HashSet<usize>,
}

impl<'a> Targets<'a> {
    fn new(addresses: impl Iterator<Item = &'a str>) -> Self {
        let addresses: HashSet<&str> = addresses.collect();
        let lengths = addresses.iter().map(|a| a.len()).collect();
        Targets { addresses, lengths }
    }

    /// The addresses `r` refers to: `r` itself, or any prefix of it followed
    /// by `.` or `[` (the same test as `tf.refers_exactly`).
    fn of(&self, r: &str) -> BTreeSet<&'a str> {
        let ends = r
            .bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'.' || b == b'[')
            .map(|(i, _)| i)
            .chain(std::iter::once(r.len()));
        let mut found = BTreeSet::new();
        for end in ends {
            if !self.lengths.contains(&end) {
                continue;
            }
            // `.` and `[` are ASCII, so `end` is a character boundary.
            if let Some(address) = r.get(..end).and_then(|p| self.addresses.get(p)) {
                found.insert(*address);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_names_the_address_it_starts_with_at_a_boundary() {
        let targets = Targets::new(["aws_s3_bucket.b", "aws_s3_bucket.bb", "var.x"].into_iter());
        let of = |r| targets.of(r).into_iter().collect::<Vec<_>>();
        assert_eq!(of("aws_s3_bucket.b.id"), ["aws_s3_bucket.b"]);
        assert_eq!(of("aws_s3_bucket.b[0].id"), ["aws_s3_bucket.b"]);
        assert_eq!(of("aws_s3_bucket.b"), ["aws_s3_bucket.b"]);
        assert_eq!(of("aws_s3_bucket.bb.arn"), ["aws_s3_bucket.bb"]);
        assert!(of("aws_s3_bucket.bc.id").is_empty());
        assert!(of("aws_s3_bucket").is_empty());
        assert_eq!(of("var.x"), ["var.x"]);
    }
}
