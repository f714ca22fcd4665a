//! Question templates (E1 §6.3): rendering a flow and reading a v1 question
//! back into a flow.

use chrono::{DateTime, NaiveDateTime};

use super::flow::Flow;

/// The arrow between ports, written as raw UTF-8.
pub const ARROW: char = '→';

/// Fixed prefix of the v1 template.
pub const V1_PREFIX: &str = "Zeek conn ";

/// Which question template to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Template {
    /// The project template (one line, `key=value`).
    #[default]
    V1,
    /// Upstream-compatible text (`Device … observed …`).
    Upstream,
}

impl Template {
    /// Parses `v1` or `upstream`.
    pub fn parse(s: &str) -> Option<Template> {
        match s {
            "v1" => Some(Template::V1),
            "upstream" => Some(Template::Upstream),
            _ => None,
        }
    }
}

/// Renders `flow` with `template`.
pub fn render(flow: &Flow, template: Template) -> String {
    match template {
        Template::V1 => render_question(flow),
        Template::Upstream => render_question_upstream(flow),
    }
}

/// Missing values render as `?`; whitespace inside a value becomes `_` so the
/// question stays one line of space-separated tokens.
fn text(v: &Option<String>) -> String {
    match v {
        Some(s) if !s.is_empty() => s
            .chars()
            .map(|c| if c.is_whitespace() { '_' } else { c })
            .collect(),
        _ => "?".to_string(),
    }
}

fn int(v: Option<u64>) -> String {
    v.map_or_else(|| "?".to_string(), |x| x.to_string())
}

/// Durations with exactly 6 decimals (`0.000000` for zero).
fn secs(v: Option<f64>) -> String {
    match v {
        Some(d) if d.is_finite() => format!("{d:.6}"),
        _ => "?".to_string(),
    }
}

/// `ts` as ISO-8601 UTC seconds (fraction truncated), `?` if missing.
pub fn iso_ts(ts: Option<f64>) -> String {
    ts.filter(|t| t.is_finite())
        .and_then(|t| DateTime::from_timestamp(t.floor() as i64, 0))
        .map_or_else(
            || "?".to_string(),
            |d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        )
}

/// The v1 question (E1 §6.3).
pub fn render_question(f: &Flow) -> String {
    format!(
        "{V1_PREFIX}{} device={} proto={} service={} {}{ARROW}{} duration={} orig_bytes={} resp_bytes={} orig_pkts={} resp_pkts={} conn_state={} flags={}",
        iso_ts(f.ts),
        text(&f.device_type),
        text(&f.proto),
        text(&f.service),
        int(f.orig_p),
        int(f.resp_p),
        secs(f.duration),
        int(f.orig_bytes),
        int(f.resp_bytes),
        int(f.orig_pkts),
        int(f.resp_pkts),
        text(&f.conn_state),
        text(&f.history),
    )
}

/// The upstream-compatible question: bytes are `orig + resp` (`?` if either
/// side is missing) and a missing device is `unknown-device`.
pub fn render_question_upstream(f: &Flow) -> String {
    let device = match &f.device_type {
        Some(_) => text(&f.device_type),
        None => "unknown-device".to_string(),
    };
    let bytes = match (f.orig_bytes, f.resp_bytes) {
        (Some(a), Some(b)) => a.saturating_add(b).to_string(),
        _ => "?".to_string(),
    };
    format!(
        "Device {device} observed {} {}{ARROW}{}, duration {}, bytes {bytes}, flags [{}]. Decide: Malicious or Benign (you may Abstain if unsure).",
        text(&f.proto),
        int(f.orig_p),
        int(f.resp_p),
        secs(f.duration),
        text(&f.history),
    )
}

/// Reads a v1 question back into a flow (`uid` is not rendered, so it stays
/// `None`; `ts` comes back in whole seconds). `None` if `q` is not a v1 question.
pub fn parse_question_v1(q: &str) -> Option<Flow> {
    let rest = q.strip_prefix(V1_PREFIX)?;
    let mut tokens = rest.split(' ');
    let ts = match tokens.next()? {
        "?" => None,
        t => Some(
            NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%SZ")
                .ok()?
                .and_utc()
                .timestamp() as f64,
        ),
    };
    let mut f = Flow {
        ts,
        ..Flow::default()
    };
    // One bit per token kind: each must appear exactly once.
    let mut seen = 0u16;
    for tok in tokens {
        if let Some((a, b)) = tok.split_once(ARROW) {
            f.orig_p = opt_int(a)?;
            f.resp_p = opt_int(b)?;
            seen = mark(seen, 0)?;
            continue;
        }
        let (k, v) = tok.split_once('=')?;
        let bit = V1_KEYS.iter().position(|x| *x == k)? + 1;
        seen = mark(seen, bit)?;
        match k {
            "device" => f.device_type = opt_text(v),
            "proto" => f.proto = opt_text(v),
            "service" => f.service = opt_text(v),
            "duration" => {
                f.duration = match v {
                    "?" => None,
                    _ => Some(v.parse::<f64>().ok()?),
                }
            }
            "orig_bytes" => f.orig_bytes = opt_int(v)?,
            "resp_bytes" => f.resp_bytes = opt_int(v)?,
            "orig_pkts" => f.orig_pkts = opt_int(v)?,
            "resp_pkts" => f.resp_pkts = opt_int(v)?,
            "conn_state" => f.conn_state = opt_text(v),
            "flags" => f.history = opt_text(v),
            _ => return None,
        }
    }
    (seen == (1 << (V1_KEYS.len() + 1)) - 1).then_some(f)
}

/// The `key=value` tokens of the v1 template, in order.
const V1_KEYS: [&str; 10] = [
    "device",
    "proto",
    "service",
    "duration",
    "orig_bytes",
    "resp_bytes",
    "orig_pkts",
    "resp_pkts",
    "conn_state",
    "flags",
];

fn mark(seen: u16, bit: usize) -> Option<u16> {
    let m = 1u16 << bit;
    (seen & m == 0).then_some(seen | m)
}

fn opt_text(v: &str) -> Option<String> {
    (v != "?").then(|| v.to_string())
}

fn opt_int(v: &str) -> Option<Option<u64>> {
    if v == "?" {
        Some(None)
    } else {
        v.parse::<u64>().ok().map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syn() -> Flow {
        Flow {
            ts: Some(1_709_820_309.25),
            uid: Some("CabcdefghijABCDEFG".into()),
            proto: Some("tcp".into()),
            service: None,
            duration: None,
            orig_bytes: None,
            resp_bytes: None,
            conn_state: Some("S0".into()),
            history: Some("S".into()),
            orig_pkts: Some(1),
            resp_pkts: Some(0),
            orig_p: Some(51022),
            resp_p: Some(23),
            device_type: Some("ip-camera".into()),
        }
    }

    #[test]
    fn spec_example_renders_exactly() {
        assert_eq!(
            render_question(&syn()),
            "Zeek conn 2024-03-07T14:05:09Z device=ip-camera proto=tcp service=? 51022→23 duration=? orig_bytes=? resp_bytes=? orig_pkts=1 resp_pkts=0 conn_state=S0 flags=S"
        );
    }

    #[test]
    fn zero_is_a_value_and_round_trips() {
        let mut f = syn();
        f.duration = Some(0.0);
        f.orig_bytes = Some(0);
        f.resp_bytes = Some(0);
        f.orig_pkts = Some(2);
        let q = render_question(&f);
        assert!(
            q.contains("duration=0.000000 orig_bytes=0 resp_bytes=0"),
            "{q}"
        );
        let back = parse_question_v1(&q).expect("parses");
        assert_eq!(back.duration, Some(0.0));
        assert_eq!(back.orig_bytes, Some(0));
        assert_eq!(back.ts, Some(1_709_820_309.0));
    }

    #[test]
    fn upstream_template() {
        let mut f = syn();
        f.device_type = None;
        assert_eq!(
            render_question_upstream(&f),
            "Device unknown-device observed tcp 51022→23, duration ?, bytes ?, flags [S]. Decide: Malicious or Benign (you may Abstain if unsure)."
        );
        f.duration = Some(0.0);
        f.orig_bytes = Some(0);
        f.resp_bytes = Some(0);
        assert!(render_question_upstream(&f).contains("duration 0.000000, bytes 0,"));
    }
}
