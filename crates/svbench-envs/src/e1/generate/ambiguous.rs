//! Ambiguous archetypes (E1 §6.2): features are drawn without looking at the
//! label, then the label is Malicious with probability `q`. Each archetype
//! owns a feature region (its predicate) that no clear family emits, so
//! P(Malicious | record) = q exactly for records in the region.

use super::flow::Flow;
use super::rng::GenRng;
use super::shape::{dur, micros, syn_only, tcp_history, udp, Shape};

/// One ambiguous archetype.
#[derive(Debug, Clone, Copy)]
pub struct Archetype {
    /// Stable id, written to `meta.scenario`.
    pub id: &'static str,
    /// P(Malicious | record in this region).
    pub q: f64,
    /// Draws a shape inside the region (label-independent).
    pub draw: fn(&mut GenRng) -> Shape,
    /// The region: true iff a flow lies in it.
    pub owns: fn(&Flow) -> bool,
}

/// The archetypes, in a fixed order.
pub const ARCHETYPES: &[Archetype] = &[
    Archetype {
        id: "amb_syn_web",
        q: 0.25,
        draw: syn_web,
        owns: owns_syn_web,
    },
    Archetype {
        id: "amb_short_ssh",
        q: 0.30,
        draw: short_ssh,
        owns: owns_short_ssh,
    },
    Archetype {
        id: "amb_tls_small",
        q: 0.22,
        draw: tls_small,
        owns: owns_tls_small,
    },
    Archetype {
        id: "amb_udp_single_high",
        q: 0.20,
        draw: udp_single_high,
        owns: owns_udp_single_high,
    },
    Archetype {
        id: "amb_dns_large",
        q: 0.10,
        draw: dns_large,
        owns: owns_dns_large,
    },
    Archetype {
        id: "amb_telnet_reset",
        q: 0.55,
        draw: telnet_reset,
        owns: owns_telnet_reset,
    },
];

/// The archetype whose region contains `flow`, if any.
pub fn owning_archetype(flow: &Flow) -> Option<&'static Archetype> {
    ARCHETYPES.iter().find(|a| (a.owns)(flow))
}

fn is(v: &Option<String>, s: &str) -> bool {
    v.as_deref() == Some(s)
}

// Single SYN, no reply, to a web port.
fn syn_web(r: &mut GenRng) -> Shape {
    let port = *r.pick(&[80, 443, 8080]);
    syn_only(r, port, 1, (1.0, 1.0))
}
fn owns_syn_web(f: &Flow) -> bool {
    is(&f.proto, "tcp")
        && is(&f.conn_state, "S0")
        && f.is_single_packet()
        && matches!(f.resp_p, Some(80 | 443 | 8080))
}

// Short SSH connection: 10–20 originator packets.
fn short_ssh(r: &mut GenRng) -> Shape {
    let op = r.int(10, 20);
    let rp = r.int(8, 20);
    let ob = r.log_int(1000, 4000);
    let rb = r.log_int(1000, 4000);
    let state = *r.pick(&["SF", "RSTO", "RSTR"]);
    let history = tcp_history(r, state, true, true);
    Shape {
        proto: "tcp",
        service: Some("ssh"),
        orig_p: None,
        resp_p: 22,
        duration: Some(dur(r, 0.5, 10.0)),
        orig_bytes: Some(ob),
        resp_bytes: Some(rb),
        conn_state: state,
        history: Some(history),
        orig_pkts: op,
        resp_pkts: rp,
    }
}
fn owns_short_ssh(f: &Flow) -> bool {
    is(&f.proto, "tcp")
        && f.resp_p == Some(22)
        && f.orig_pkts.is_some_and(|p| (10..=20).contains(&p))
}

// Small TLS exchange ("heartbeat") to 443.
fn tls_small(r: &mut GenRng) -> Shape {
    let ob = r.int(100, 450);
    let rb = r.int(100, 450);
    let history = tcp_history(r, "SF", true, true);
    Shape {
        proto: "tcp",
        service: Some("ssl"),
        orig_p: None,
        resp_p: 443,
        duration: Some(dur(r, 0.05, 30.0)),
        orig_bytes: Some(ob),
        resp_bytes: Some(rb),
        conn_state: "SF",
        history: Some(history),
        orig_pkts: r.int(4, 8),
        resp_pkts: r.int(3, 7),
    }
}
fn owns_tls_small(f: &Flow) -> bool {
    is(&f.proto, "tcp")
        && f.resp_p == Some(443)
        && is(&f.service, "ssl")
        && f.orig_bytes.is_some_and(|b| b <= 450)
        && f.resp_bytes.is_some_and(|b| b <= 450)
}

// One UDP datagram to a high port, no reply.
fn udp_single_high(r: &mut GenRng) -> Shape {
    let port = r.int(10_000, 65_535);
    udp(r, port, None, (1, 0), (0, 0), (0.0, 0.0))
}
fn owns_udp_single_high(f: &Flow) -> bool {
    is(&f.proto, "udp") && f.is_single_packet() && f.resp_p.is_some_and(|p| p >= 10_000)
}

// DNS lookup with a large answer.
fn dns_large(r: &mut GenRng) -> Shape {
    let ob = r.int(30, 60);
    let rb = r.log_int(600, 1400);
    udp(r, 53, Some("dns"), (1, 1), (ob, rb), (0.001, 0.3))
}
fn owns_dns_large(f: &Flow) -> bool {
    is(&f.service, "dns") && f.resp_bytes.is_some_and(|b| b >= 600)
}

// Reset right after connecting to telnet.
fn telnet_reset(r: &mut GenRng) -> Shape {
    let port = if r.chance(0.7) { 23 } else { 2323 };
    let by_orig = r.chance(0.5);
    let op = r.int(2, 3);
    let rp = r.int(1, 2);
    Shape {
        proto: "tcp",
        service: None,
        orig_p: None,
        resp_p: port,
        duration: Some(micros(r.log_real(0.0005, 1.0))),
        orig_bytes: Some(0),
        resp_bytes: Some(0),
        conn_state: if by_orig { "RSTO" } else { "RSTR" },
        history: Some(if by_orig { "ShAR" } else { "ShAr" }.to_string()),
        orig_pkts: op,
        resp_pkts: rp,
    }
}
fn owns_telnet_reset(f: &Flow) -> bool {
    is(&f.proto, "tcp")
        && matches!(f.resp_p, Some(23 | 2323))
        && matches!(f.conn_state.as_deref(), Some("RSTO" | "RSTR"))
        && f.orig_bytes == Some(0)
        && f.resp_bytes == Some(0)
}
