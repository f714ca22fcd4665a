//! One generated row: the label-independent context (time, device, source
//! port, uid), the family or archetype shape, the question and the JSON row.

use serde_json::{json, Map, Value};
use svbench_core::canonical::sha256_hex;

use super::ambiguous::Archetype;
use super::decision::optimal_action;
use super::families::Family;
use super::flow::{make_uid, Flow};
use super::render::render_question;
use super::rng::GenRng;
use super::shape::Shape;
use super::{Split, GENERATOR_NAME, GENERATOR_VERSION};
use crate::e1::Gold;

/// In-distribution device types.
pub const ID_DEVICES: &[&str] = &[
    "ip-camera",
    "smart-plug",
    "thermostat",
    "smart-speaker",
    "iot-hub",
    "home-router",
    "doorbell",
    "smart-tv",
];

/// Device types of the ood split.
pub const OOD_DEVICES: &[&str] = &["workstation", "laptop", "printer", "nas-box"];

/// 2024-01-01T00:00:00Z.
const TS_START: u64 = 1_704_067_200;
/// Microseconds in 2024 (a leap year).
const TS_SPAN_MICROS: u64 = 366 * 86_400 * 1_000_000;

/// What a row is drawn from.
#[derive(Debug, Clone, Copy)]
pub enum RowKind {
    /// A clear family (`shifted`: the ood variant of an in-distribution family).
    Clear(&'static Family, bool),
    /// An ambiguous archetype with its (already drawn) label.
    Ambiguous(&'static Archetype, Gold),
}

impl RowKind {
    /// The gold label.
    pub fn label(&self) -> Gold {
        match self {
            RowKind::Clear(f, _) => f.label,
            RowKind::Ambiguous(_, g) => *g,
        }
    }
}

/// The first 16 hex characters of SHA-256 over the question (E1 §6.3).
pub fn question_hash(question: &str) -> String {
    sha256_hex(question.as_bytes())[..16].to_string()
}

/// Draws a flow of `kind` for `split`.
pub fn draw_flow(rng: &mut GenRng, kind: RowKind, split: Split) -> Flow {
    let devices = if split == Split::Ood {
        OOD_DEVICES
    } else {
        ID_DEVICES
    };
    let ts = (TS_START * 1_000_000 + rng.below(TS_SPAN_MICROS)) as f64 / 1e6;
    let device = *rng.pick(devices);
    let orig_p = rng.int(32_768, 60_999);
    let uid = make_uid(rng);
    let shape: Shape = match kind {
        RowKind::Clear(f, shifted) => (f.draw)(rng, shifted),
        RowKind::Ambiguous(a, _) => (a.draw)(rng),
    };
    let mut flow = Flow {
        ts: Some(ts),
        uid: Some(uid),
        orig_p: Some(orig_p),
        device_type: Some(device.to_string()),
        ..Flow::default()
    };
    shape.apply(&mut flow);
    flow
}

/// The JSON row for a drawn flow, keys in the documented order.
pub fn build_row(flow: &Flow, kind: RowKind, split: Split, seed: u64) -> Value {
    let question = render_question(flow);
    let label = kind.label();
    let (scenario, ambiguous, q) = match kind {
        RowKind::Clear(f, _) => (
            f.id,
            false,
            if label == Gold::Malicious { 1.0 } else { 0.0 },
        ),
        RowKind::Ambiguous(a, _) => (a.id, true, a.q),
    };
    let attack_family = if label == Gold::Malicious {
        scenario
    } else {
        "NA"
    };
    let mut meta = Map::new();
    meta.insert("source".into(), json!(GENERATOR_NAME));
    meta.insert("scenario".into(), json!(scenario));
    meta.insert("attack_family".into(), json!(attack_family));
    meta.insert("hash".into(), json!(question_hash(&question)));
    meta.insert("split".into(), json!(split.as_str()));
    let mut generator = Map::new();
    generator.insert("name".into(), json!(GENERATOR_NAME));
    generator.insert("version".into(), json!(GENERATOR_VERSION));
    generator.insert("seed".into(), json!(seed));
    meta.insert("generator".into(), Value::Object(generator));
    meta.insert("ambiguous".into(), json!(ambiguous));
    meta.insert("p_malicious".into(), json!(q));
    meta.insert("optimal_action".into(), json!(optimal_action(q).as_str()));
    meta.insert("flow".into(), flow.to_json());
    let mut row = Map::new();
    row.insert("question".into(), json!(question));
    row.insert("answer".into(), json!(label.as_str()));
    row.insert("meta".into(), Value::Object(meta));
    Value::Object(row)
}
