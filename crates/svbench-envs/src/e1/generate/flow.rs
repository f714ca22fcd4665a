//! The flow record (E1 §6.2): one Zeek `conn.log` entry, its JSON form in
//! `meta.flow` and Zeek's consistency rules.

use serde_json::{Map, Value};

/// Zeek connection states the generator and importer know.
pub const CONN_STATES: &[&str] = &[
    "S0", "S1", "SF", "REJ", "S2", "S3", "RSTO", "RSTR", "RSTOS0", "RSTRH", "SH", "SHR", "OTH",
];

/// Letters Zeek uses in `history`.
const TCP_HISTORY: &str = "ShADadFfRrTtWwCcGgIiQq^";

/// One connection record with Zeek `conn.log` semantics. `None` is a missing
/// value (Zeek `-`); zero is a value, never missing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Flow {
    /// Start time, epoch seconds.
    pub ts: Option<f64>,
    /// Zeek uid (`C` + 17 base-62 characters); never rendered.
    pub uid: Option<String>,
    /// Transport protocol: `tcp`, `udp` or `icmp`.
    pub proto: Option<String>,
    /// Application protocol Zeek recognised.
    pub service: Option<String>,
    /// Seconds between first and last packet.
    pub duration: Option<f64>,
    /// Payload bytes sent by the originator.
    pub orig_bytes: Option<u64>,
    /// Payload bytes sent by the responder.
    pub resp_bytes: Option<u64>,
    /// Zeek connection state code.
    pub conn_state: Option<String>,
    /// Zeek history letters.
    pub history: Option<String>,
    /// Packets sent by the originator.
    pub orig_pkts: Option<u64>,
    /// Packets sent by the responder.
    pub resp_pkts: Option<u64>,
    /// Originator port (ICMP: type).
    pub orig_p: Option<u64>,
    /// Responder port (ICMP: code).
    pub resp_p: Option<u64>,
    /// Device type of the originator.
    pub device_type: Option<String>,
}

/// Keys of `meta.flow`, in the order they are written.
pub const FLOW_KEYS: [&str; 14] = [
    "ts",
    "uid",
    "proto",
    "service",
    "duration",
    "orig_bytes",
    "resp_bytes",
    "conn_state",
    "history",
    "orig_pkts",
    "resp_pkts",
    "orig_p",
    "resp_p",
    "device_type",
];

impl Flow {
    /// `meta.flow`: every key present, `null` for missing, fixed key order.
    pub fn to_json(&self) -> Value {
        fn s(v: &Option<String>) -> Value {
            v.as_ref().map_or(Value::Null, |x| Value::String(x.clone()))
        }
        fn n(v: Option<u64>) -> Value {
            v.map_or(Value::Null, Value::from)
        }
        fn f(v: Option<f64>) -> Value {
            v.and_then(serde_json::Number::from_f64)
                .map_or(Value::Null, Value::Number)
        }
        let mut m = Map::new();
        m.insert("ts".into(), f(self.ts));
        m.insert("uid".into(), s(&self.uid));
        m.insert("proto".into(), s(&self.proto));
        m.insert("service".into(), s(&self.service));
        m.insert("duration".into(), f(self.duration));
        m.insert("orig_bytes".into(), n(self.orig_bytes));
        m.insert("resp_bytes".into(), n(self.resp_bytes));
        m.insert("conn_state".into(), s(&self.conn_state));
        m.insert("history".into(), s(&self.history));
        m.insert("orig_pkts".into(), n(self.orig_pkts));
        m.insert("resp_pkts".into(), n(self.resp_pkts));
        m.insert("orig_p".into(), n(self.orig_p));
        m.insert("resp_p".into(), n(self.resp_p));
        m.insert("device_type".into(), s(&self.device_type));
        Value::Object(m)
    }

    /// Reads `meta.flow` back; `None` if it is not an object or a value has
    /// the wrong type.
    pub fn from_json(v: &Value) -> Option<Flow> {
        let m = v.as_object()?;
        fn s(m: &Map<String, Value>, k: &str) -> Option<Option<String>> {
            match m.get(k) {
                None | Some(Value::Null) => Some(None),
                Some(Value::String(x)) => Some(Some(x.clone())),
                _ => None,
            }
        }
        fn n(m: &Map<String, Value>, k: &str) -> Option<Option<u64>> {
            match m.get(k) {
                None | Some(Value::Null) => Some(None),
                Some(x) => x.as_u64().map(Some),
            }
        }
        fn f(m: &Map<String, Value>, k: &str) -> Option<Option<f64>> {
            match m.get(k) {
                None | Some(Value::Null) => Some(None),
                Some(x) => x.as_f64().map(Some),
            }
        }
        Some(Flow {
            ts: f(m, "ts")?,
            uid: s(m, "uid")?,
            proto: s(m, "proto")?,
            service: s(m, "service")?,
            duration: f(m, "duration")?,
            orig_bytes: n(m, "orig_bytes")?,
            resp_bytes: n(m, "resp_bytes")?,
            conn_state: s(m, "conn_state")?,
            history: s(m, "history")?,
            orig_pkts: n(m, "orig_pkts")?,
            resp_pkts: n(m, "resp_pkts")?,
            orig_p: n(m, "orig_p")?,
            resp_p: n(m, "resp_p")?,
            device_type: s(m, "device_type")?,
        })
    }

    /// True for a single-packet flow (one originator packet, no reply).
    pub fn is_single_packet(&self) -> bool {
        self.orig_pkts == Some(1) && self.resp_pkts == Some(0)
    }
}

/// Zeek consistency rules (E1 §6.2) a generated flow must satisfy; returns
/// every rule broken (empty = consistent).
pub fn zeek_violations(f: &Flow) -> Vec<String> {
    let mut v = Vec::new();
    let proto = f.proto.as_deref().unwrap_or("");
    if !matches!(proto, "tcp" | "udp" | "icmp") {
        v.push(format!("proto `{proto}` is not tcp/udp/icmp"));
    }
    let state = f.conn_state.as_deref().unwrap_or("");
    if !CONN_STATES.contains(&state) {
        v.push(format!("conn_state `{state}` is not a Zeek code"));
    }
    let (Some(op), Some(rp)) = (f.orig_pkts, f.resp_pkts) else {
        v.push("packet counts missing".into());
        return v;
    };
    if op == 0 && rp == 0 {
        v.push("no packets".into());
    }
    let single = op == 1 && rp == 0;
    for (name, missing) in [
        ("duration", f.duration.is_none()),
        ("orig_bytes", f.orig_bytes.is_none()),
        ("resp_bytes", f.resp_bytes.is_none()),
    ] {
        if missing != single {
            v.push(format!(
                "{name} missing={missing} but single-packet={single}"
            ));
        }
    }
    if f.duration.is_some_and(|d| !(d >= 0.0 && d.is_finite())) {
        v.push("negative or non-finite duration".into());
    }
    if state == "S0" && rp != 0 {
        v.push("S0 with responder packets".into());
    }
    if state == "S0" && f.resp_bytes.is_some_and(|b| b != 0) {
        v.push("S0 with responder bytes".into());
    }
    if state == "REJ" && (f.resp_bytes != Some(0) || rp < 1) {
        v.push("REJ needs resp_bytes = 0 and resp_pkts >= 1".into());
    }
    if state == "SF" && proto == "tcp" && (op < 1 || rp < 1) {
        v.push("tcp SF needs packets both ways".into());
    }
    if f.orig_bytes.is_some_and(|b| b > 0) && op == 0 {
        v.push("orig_bytes without orig packets".into());
    }
    if f.resp_bytes.is_some_and(|b| b > 0) && rp == 0 {
        v.push("resp_bytes without resp packets".into());
    }
    match (proto, f.history.as_deref()) {
        ("udp", Some(h)) if h.is_empty() || !h.chars().all(|c| c == 'D' || c == 'd') => {
            v.push(format!("udp history `{h}` uses letters other than D/d"));
        }
        ("tcp", Some(h)) if h.is_empty() || !h.chars().all(|c| TCP_HISTORY.contains(c)) => {
            v.push(format!("tcp history `{h}` has non-Zeek letters"));
        }
        ("tcp", None) => v.push("tcp flow without history".into()),
        _ => {}
    }
    if proto == "icmp" && f.service.is_some() {
        v.push("icmp with a service".into());
    }
    for (name, p) in [("orig_p", f.orig_p), ("resp_p", f.resp_p)] {
        match p {
            Some(p) if p <= 65535 => {}
            _ => v.push(format!("{name} missing or out of range")),
        }
    }
    v
}

/// A Zeek-style uid: `C` followed by 17 base-62 characters.
pub fn make_uid(rng: &mut super::rng::GenRng) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut s = String::with_capacity(18);
    s.push('C');
    for _ in 0..17 {
        s.push(ALPHABET[rng.below(62) as usize] as char);
    }
    s
}
