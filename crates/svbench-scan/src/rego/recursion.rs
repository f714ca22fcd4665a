//! Rejects recursive user-defined functions before they are evaluated.
//!
//! regorus detects recursion between *rules* at evaluation time, but a
//! function that calls itself (directly or through other functions) recurses
//! until the native stack overflows, which aborts the whole process; its
//! execution timer cannot stop that in time. Rego forbids recursion anyway,
//! so the call graph of all loaded functions (from regorus' AST) is checked
//! for cycles whenever a module is added.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// The functions on a call cycle, sorted, or `None` when there is none.
pub(super) fn function_cycle(modules: &Value) -> Option<Vec<String>> {
    let mut specs = Vec::new();
    for module in modules.as_array().into_iter().flatten() {
        let ast = &module["ast"];
        let Some(package) = ref_path(&ast["package"]["refr"]) else {
            continue;
        };
        for rule in ast["rules"].as_array().into_iter().flatten() {
            let spec = &rule["Spec"];
            if let Some(name) = ref_path(&spec["head"]["Func"]["refr"]) {
                specs.push((format!("{package}.{name}"), package.clone(), spec));
            }
        }
    }
    let functions: BTreeSet<&str> = specs.iter().map(|(f, _, _)| f.as_str()).collect();
    let mut calls: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (function, package, spec) in &specs {
        let mut callees = Vec::new();
        collect_calls(spec, &mut callees);
        let entry = calls.entry(function.as_str()).or_default();
        for callee in callees {
            let full = match callee.strip_prefix("data.") {
                Some(absolute) => absolute.to_owned(),
                None => format!("{package}.{callee}"),
            };
            if functions.contains(full.as_str()) {
                entry.insert(full);
            }
        }
    }
    // Kahn's algorithm on the reversed view: repeatedly drop functions that
    // call nothing still present; whatever remains lies on or leads to a cycle.
    let mut remaining: BTreeMap<&str, BTreeSet<String>> = calls;
    loop {
        let done: Vec<&str> = remaining
            .iter()
            .filter(|(_, callees)| callees.iter().all(|c| !remaining.contains_key(c.as_str())))
            .map(|(f, _)| *f)
            .collect();
        if done.is_empty() {
            break;
        }
        for f in done {
            remaining.remove(f);
        }
    }
    if remaining.is_empty() {
        None
    } else {
        Some(remaining.keys().map(|f| (*f).to_owned()).collect())
    }
}

/// `a.b.c` for a `Var`/`RefDot` chain; `None` for anything else.
pub(super) fn ref_path(value: &Value) -> Option<String> {
    let mut fields = Vec::new();
    let mut current = value;
    loop {
        if let Some(var) = current.get("Var") {
            fields.push(var["value"].as_str()?.to_owned());
            break;
        }
        let dot = current.get("RefDot")?;
        fields.push(dot["field"][1].as_str()?.to_owned());
        current = &dot["refr"];
    }
    fields.reverse();
    Some(fields.join("."))
}

/// Names of every called function anywhere under `value`.
fn collect_calls(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(call) = map.get("Call") {
                if let Some(name) = ref_path(&call["fcn"]) {
                    out.push(name);
                }
            }
            for v in map.values() {
                collect_calls(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_calls(v, out)),
        _ => {}
    }
}
