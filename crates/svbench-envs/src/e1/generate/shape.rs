//! Building blocks for family shapes: the label-bearing part of a flow
//! (protocol, ports, sizes, state, history), with Zeek's packet and
//! missingness rules applied in one place.

use super::flow::Flow;
use super::rng::GenRng;

/// The shape of a connection; the context (time, device, uid, source port
/// unless fixed here) is drawn separately and independently of the label.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// `tcp`, `udp` or `icmp`.
    pub proto: &'static str,
    /// Zeek service, if recognised.
    pub service: Option<&'static str>,
    /// Fixed originator port (ICMP type, NTP/mDNS source); `None` = ephemeral.
    pub orig_p: Option<u64>,
    /// Responder port (ICMP code).
    pub resp_p: u64,
    /// Seconds (rounded to microseconds); `None` only for single-packet flows.
    pub duration: Option<f64>,
    /// Originator payload bytes.
    pub orig_bytes: Option<u64>,
    /// Responder payload bytes.
    pub resp_bytes: Option<u64>,
    /// Zeek state.
    pub conn_state: &'static str,
    /// Zeek history.
    pub history: Option<String>,
    /// Originator packets.
    pub orig_pkts: u64,
    /// Responder packets.
    pub resp_pkts: u64,
}

impl Shape {
    /// Fills the shape's fields into `flow`.
    pub fn apply(&self, flow: &mut Flow) {
        flow.proto = Some(self.proto.to_string());
        flow.service = self.service.map(str::to_string);
        if let Some(p) = self.orig_p {
            flow.orig_p = Some(p);
        }
        flow.resp_p = Some(self.resp_p);
        flow.duration = self.duration;
        flow.orig_bytes = self.orig_bytes;
        flow.resp_bytes = self.resp_bytes;
        flow.conn_state = Some(self.conn_state.to_string());
        flow.history = self.history.clone();
        flow.orig_pkts = Some(self.orig_pkts);
        flow.resp_pkts = Some(self.resp_pkts);
    }
}

/// Rounds seconds to microseconds (Zeek's resolution), so the 6-decimal
/// rendering reads back to the same value.
pub fn micros(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// A log-uniform duration in [lo, hi) seconds, rounded to microseconds.
pub fn dur(rng: &mut GenRng, lo: f64, hi: f64) -> f64 {
    micros(rng.log_real(lo, hi))
}

/// Packet counts for a TCP exchange that carried `ob`/`rb` payload bytes:
/// handshake, data segments, delayed ACKs and teardown.
pub fn tcp_pkts(rng: &mut GenRng, ob: u64, rb: u64) -> (u64, u64) {
    let seg_o = rng.int(536, 1448);
    let seg_r = rng.int(1200, 1448);
    let od = ob.div_ceil(seg_o);
    let rd = rb.div_ceil(seg_r);
    (3 + od + rd / 2, 2 + rd + od / 2)
}

/// TCP history for an established connection ending in `state`.
pub fn tcp_history(rng: &mut GenRng, state: &str, data_o: bool, data_r: bool) -> String {
    let mut h = String::from("Sh");
    let d = match (data_o, data_r) {
        (true, true) => *rng.pick(&["ADad", "AdDa", "ADda"]),
        (true, false) => "ADa",
        (false, true) => "Ada",
        (false, false) => "A",
    };
    h.push_str(d);
    let tail = match state {
        "SF" => *rng.pick(&["Ff", "fF", "Ff"]),
        "S1" => "",
        "RSTO" => "R",
        "RSTR" => "r",
        "S2" => "F",
        "S3" => "f",
        _ => "",
    };
    h.push_str(tail);
    h
}

/// An established TCP connection with the given payloads and duration.
pub fn tcp_session(
    rng: &mut GenRng,
    resp_p: u64,
    service: Option<&'static str>,
    ob: u64,
    rb: u64,
    duration: f64,
    state: &'static str,
) -> Shape {
    let (op, rp) = tcp_pkts(rng, ob, rb);
    let history = tcp_history(rng, state, ob > 0, rb > 0);
    Shape {
        proto: "tcp",
        service,
        orig_p: None,
        resp_p,
        duration: Some(micros(duration)),
        orig_bytes: Some(ob),
        resp_bytes: Some(rb),
        conn_state: state,
        history: Some(history),
        orig_pkts: op,
        resp_pkts: rp,
    }
}

/// Like [`tcp_session`] but with explicit packet counts.
#[allow(clippy::too_many_arguments)]
pub fn tcp_session_pkts(
    rng: &mut GenRng,
    resp_p: u64,
    service: Option<&'static str>,
    ob: u64,
    rb: u64,
    duration: f64,
    state: &'static str,
    pkts: (u64, u64),
) -> Shape {
    let mut s = tcp_session(rng, resp_p, service, ob, rb, duration, state);
    s.orig_pkts = pkts.0;
    s.resp_pkts = pkts.1;
    s
}

/// Unanswered SYNs (`S0`, history `S`): one SYN is a single-packet flow with
/// no duration or bytes; retransmissions span `retry` seconds.
pub fn syn_only(rng: &mut GenRng, resp_p: u64, syns: u64, retry: (f64, f64)) -> Shape {
    let single = syns == 1;
    Shape {
        proto: "tcp",
        service: None,
        orig_p: None,
        resp_p,
        duration: (!single).then(|| dur(rng, retry.0, retry.1)),
        orig_bytes: (!single).then_some(0),
        resp_bytes: (!single).then_some(0),
        conn_state: "S0",
        history: Some("S".into()),
        orig_pkts: syns,
        resp_pkts: 0,
    }
}

/// A refused connection (`REJ`, history `Sr`).
pub fn rejected(rng: &mut GenRng, resp_p: u64, syns: u64) -> Shape {
    let d = if syns == 1 {
        dur(rng, 0.00005, 0.05)
    } else {
        dur(rng, 0.5, 6.0)
    };
    Shape {
        proto: "tcp",
        service: None,
        orig_p: None,
        resp_p,
        duration: Some(d),
        orig_bytes: Some(0),
        resp_bytes: Some(0),
        conn_state: "REJ",
        history: Some(if syns == 1 { "Sr" } else { "Srr" }.to_string()),
        orig_pkts: syns,
        resp_pkts: syns,
    }
}

/// A UDP exchange: `S0`/`D` without reply, else `SF`/`Dd`. A lone datagram
/// has no duration or bytes (Zeek's single-packet rule).
pub fn udp(
    rng: &mut GenRng,
    resp_p: u64,
    service: Option<&'static str>,
    pkts: (u64, u64),
    bytes: (u64, u64),
    duration: (f64, f64),
) -> Shape {
    let (op, rp) = pkts;
    let single = op == 1 && rp == 0;
    let d = (!single).then(|| dur(rng, duration.0, duration.1));
    Shape {
        proto: "udp",
        service,
        orig_p: None,
        resp_p,
        duration: d,
        orig_bytes: (!single).then_some(bytes.0),
        resp_bytes: (!single).then_some(bytes.1),
        conn_state: if rp == 0 { "S0" } else { "SF" },
        history: Some(if rp == 0 { "D" } else { "Dd" }.to_string()),
        orig_pkts: op,
        resp_pkts: rp,
    }
}
