//! Clear (non-ambiguous) traffic families of the in-distribution splits
//! (E1 §6.2 table). Each family's shape depends on its label; device and time
//! are drawn elsewhere, independently of it.
//!
//! Families are grouped by destination service so that every group of ports
//! carries both benign and malicious traffic in similar amounts: a single
//! field (port, state, size) is a weak cue, while the combination is not.

use super::rng::GenRng;
use super::shape::{dur, micros, rejected, syn_only, tcp_session, tcp_session_pkts, udp, Shape};
use crate::e1::Gold;

/// Which splits a family belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    /// train/dev/test (and, with shifted ranges, ood).
    InDistribution,
    /// Only the ood split.
    OodOnly,
}

/// One traffic family.
#[derive(Debug, Clone, Copy)]
pub struct Family {
    /// Stable id, written to `meta.scenario` (and `meta.attack_family` when malicious).
    pub id: &'static str,
    /// Gold label of every flow of the family.
    pub label: Gold,
    /// Relative frequency within its label and domain.
    pub weight: f64,
    /// Where it appears.
    pub domain: Domain,
    /// Draws a shape; `shifted` asks for the ood variant of an in-distribution family.
    pub draw: fn(&mut GenRng, bool) -> Shape,
}

const B: Gold = Gold::Benign;
const M: Gold = Gold::Malicious;
const ID: Domain = Domain::InDistribution;

/// The in-distribution catalogue.
pub const ID_FAMILIES: &[Family] = &[
    // ---- benign ----
    Family {
        id: "dns_lookup",
        label: B,
        weight: 0.45,
        domain: ID,
        draw: dns_lookup,
    },
    Family {
        id: "ntp_sync",
        label: B,
        weight: 0.3,
        domain: ID,
        draw: ntp_sync,
    },
    Family {
        id: "https_cloud",
        label: B,
        weight: 0.8,
        domain: ID,
        draw: https_cloud,
    },
    Family {
        id: "http_api",
        label: B,
        weight: 0.8,
        domain: ID,
        draw: http_api,
    },
    Family {
        id: "mqtt_telemetry",
        label: B,
        weight: 0.4,
        domain: ID,
        draw: mqtt_telemetry,
    },
    Family {
        id: "local_discovery",
        label: B,
        weight: 0.5,
        domain: ID,
        draw: local_discovery,
    },
    Family {
        id: "local_control",
        label: B,
        weight: 0.7,
        domain: ID,
        draw: local_control,
    },
    Family {
        id: "udp_push",
        label: B,
        weight: 0.6,
        domain: ID,
        draw: udp_push,
    },
    Family {
        id: "camera_stream",
        label: B,
        weight: 0.4,
        domain: ID,
        draw: camera_stream,
    },
    Family {
        id: "ssh_admin",
        label: B,
        weight: 0.7,
        domain: ID,
        draw: ssh_admin,
    },
    Family {
        id: "telnet_admin",
        label: B,
        weight: 1.0,
        domain: ID,
        draw: telnet_admin,
    },
    Family {
        id: "firmware_fetch",
        label: B,
        weight: 0.5,
        domain: ID,
        draw: firmware_fetch,
    },
    Family {
        id: "dead_endpoint_retry",
        label: B,
        weight: 1.1,
        domain: ID,
        draw: dead_endpoint_retry,
    },
    Family {
        id: "icmp_echo",
        label: B,
        weight: 0.4,
        domain: ID,
        draw: icmp_echo,
    },
    Family {
        id: "upnp_control",
        label: B,
        weight: 0.6,
        domain: ID,
        draw: upnp_control,
    },
    // ---- malicious ----
    Family {
        id: "telnet_scan",
        label: M,
        weight: 0.7,
        domain: ID,
        draw: telnet_scan,
    },
    Family {
        id: "exploit_probe",
        label: M,
        weight: 0.9,
        domain: ID,
        draw: exploit_probe,
    },
    Family {
        id: "telnet_bruteforce",
        label: M,
        weight: 0.6,
        domain: ID,
        draw: telnet_bruteforce,
    },
    Family {
        id: "ssh_bruteforce",
        label: M,
        weight: 0.7,
        domain: ID,
        draw: ssh_bruteforce,
    },
    Family {
        id: "c2_beacon",
        label: M,
        weight: 0.8,
        domain: ID,
        draw: c2_beacon,
    },
    Family {
        id: "c2_tls_beacon",
        label: M,
        weight: 0.6,
        domain: ID,
        draw: c2_tls_beacon,
    },
    Family {
        id: "udp_flood",
        label: M,
        weight: 0.6,
        domain: ID,
        draw: udp_flood,
    },
    Family {
        id: "amp_scan",
        label: M,
        weight: 0.5,
        domain: ID,
        draw: amp_scan,
    },
    Family {
        id: "http_flood",
        label: M,
        weight: 0.4,
        domain: ID,
        draw: http_flood,
    },
    Family {
        id: "malware_download",
        label: M,
        weight: 0.6,
        domain: ID,
        draw: malware_download,
    },
];

/// A scale factor for the ood variants of in-distribution families.
fn scale(shifted: bool) -> f64 {
    if shifted {
        3.0
    } else {
        1.0
    }
}

fn scaled(x: u64, shifted: bool) -> u64 {
    (x as f64 * scale(shifted)).round() as u64
}

// ---------------------------------------------------------------- benign

fn dns_lookup(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.int(28, 70);
    let rb = r.log_int(44, 320);
    udp(r, 53, Some("dns"), (1, 1), (ob, rb), (0.0005, 0.25))
}

fn ntp_sync(r: &mut GenRng, _s: bool) -> Shape {
    let mut s = udp(r, 123, Some("ntp"), (1, 1), (48, 48), (0.004, 0.2));
    s.orig_p = Some(123);
    s
}

fn https_cloud(r: &mut GenRng, sh: bool) -> Shape {
    let port = *r.pick(&[443, 443, 443, 8883, 8443]);
    let ob = r.log_int(600, scaled(8000, sh));
    let rb = r.log_int(3000, 120_000);
    let d = r.log_real(0.2, 60.0);
    let state = match r.below(10) {
        0 => "RSTO",
        1 => "RSTR",
        _ => "SF",
    };
    tcp_session(r, port, Some("ssl"), ob, rb, d, state)
}

fn http_api(r: &mut GenRng, _s: bool) -> Shape {
    // Keep-alive polling: several requests on one connection.
    let port = *r.pick(&[80, 80, 80, 8080, 8080, 8000]);
    let ob = r.log_int(400, 6000);
    let rb = r.log_int(1000, 40_000);
    let d = r.log_real(2.0, 120.0);
    let state = if r.chance(0.15) { "RSTR" } else { "SF" };
    tcp_session(r, port, Some("http"), ob, rb, d, state)
}

fn mqtt_telemetry(r: &mut GenRng, sh: bool) -> Shape {
    let ob = r.log_int(200, scaled(6000, sh));
    let rb = r.log_int(50, 2000);
    let d = r.log_real(60.0, 3600.0);
    match r.below(4) {
        0 => midstream(r, 1883, ob, rb, d),
        1 => tcp_session(r, 1883, None, ob, rb, d, "S1"),
        _ => tcp_session(r, 1883, None, ob, rb, d, "SF"),
    }
}

/// A long-lived connection already open when the capture started: Zeek saw
/// no handshake and reports `OTH`.
fn midstream(r: &mut GenRng, port: u64, ob: u64, rb: u64, d: f64) -> Shape {
    let mut s = tcp_session(r, port, None, ob, rb, d, "OTH");
    s.history = Some(r.pick(&["DdA", "DadA", "AdDa", "^dADa"]).to_string());
    s.orig_pkts = s.orig_pkts.saturating_sub(2).max(1);
    s.resp_pkts = s.resp_pkts.saturating_sub(1).max(1);
    s
}

fn udp_push(r: &mut GenRng, _s: bool) -> Shape {
    // Fire-and-forget telemetry: syslog, CoAP, statsd, Tuya broadcasts.
    let port = *r.pick(&[514, 5683, 8125, 6666, 6667]);
    let op = if r.chance(0.4) { 1 } else { r.int(2, 30) };
    let ob = op * r.int(40, 600);
    udp(r, port, None, (op, 0), (ob, 0), (1.0, 600.0))
}

fn local_discovery(r: &mut GenRng, _s: bool) -> Shape {
    let mdns = r.chance(0.6);
    let port = if mdns { 5353 } else { 1900 };
    // mDNS often announces once; SSDP repeats its M-SEARCH.
    let op = if mdns && r.chance(0.6) {
        1
    } else {
        r.int(2, 6)
    };
    let ob = op * r.int(40, 400);
    let mut s = udp(r, port, None, (op, 0), (ob, 0), (0.5, 30.0));
    if mdns {
        s.service = Some("dns");
        s.orig_p = Some(5353);
    }
    s
}

fn ssh_admin(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.log_int(5_000, 300_000);
    let rb = r.log_int(10_000, 2_000_000);
    let d = r.log_real(60.0, 7200.0);
    let mut s = tcp_session(r, 22, Some("ssh"), ob, rb, d, "SF");
    s.orig_pkts = s.orig_pkts.max(r.int(40, 90));
    s.resp_pkts = s.resp_pkts.max(r.int(30, 80));
    s
}

fn telnet_admin(r: &mut GenRng, _s: bool) -> Shape {
    let port = if r.chance(0.8) { 23 } else { 2323 };
    let ob = r.log_int(500, 20_000);
    let rb = r.log_int(2_000, 200_000);
    let d = r.log_real(30.0, 3600.0);
    let mut s = tcp_session(r, port, None, ob, rb, d, "SF");
    s.orig_pkts = s.orig_pkts.max(r.int(40, 120));
    s
}

fn firmware_fetch(r: &mut GenRng, sh: bool) -> Shape {
    let tls = r.chance(0.5);
    let ob = r.log_int(300, 1500);
    let rb = r.log_int(2_000_000, scaled(30_000_000, sh));
    let d = r.log_real(5.0, 300.0);
    if tls {
        tcp_session(r, 443, Some("ssl"), ob, rb, d, "SF")
    } else {
        tcp_session(r, 80, Some("http"), ob, rb, d, "SF")
    }
}

fn dead_endpoint_retry(r: &mut GenRng, _s: bool) -> Shape {
    let port = *r.pick(&[80, 443, 1883]);
    // A persistent client: SYN retransmissions with exponential backoff
    // (1 s initial timeout), so k SYNs span about 2^(k-1) - 1 seconds.
    let syns = r.int(3, 6);
    let span = ((1u64 << (syns - 1)) - 1) as f64;
    syn_only(r, port, syns, (span * 0.95, span * 1.1))
}

fn icmp_echo(r: &mut GenRng, _s: bool) -> Shape {
    // Zeek groups echo requests with one identifier into one connection.
    let size = *r.pick(&[32, 56, 64, 84, 1472]);
    let k = r.int(1, 4);
    let d = if k == 1 {
        dur(r, 0.001, 0.3)
    } else {
        dur(r, (k - 1) as f64 * 0.95, (k - 1) as f64 * 1.05)
    };
    Shape {
        proto: "icmp",
        service: None,
        orig_p: Some(8),
        resp_p: 0,
        duration: Some(d),
        orig_bytes: Some(k * size),
        resp_bytes: Some(k * size),
        conn_state: "OTH",
        history: None,
        orig_pkts: k,
        resp_pkts: k,
    }
}

fn upnp_control(r: &mut GenRng, _s: bool) -> Shape {
    // SOAP control calls and GENA event subscriptions held open.
    let port = *r.pick(&[49152, 49152, 5000, 5000, 37215, 52869, 7547, 5555, 81]);
    let ob = r.log_int(300, 1500);
    let rb = r.log_int(600, 4000);
    if r.chance(0.5) {
        let d = r.log_real(60.0, 1800.0);
        return tcp_session(r, port, Some("http"), ob, rb, d, "S1");
    }
    let d = r.log_real(0.01, 2.0);
    tcp_session(r, port, Some("http"), ob, rb, d, "SF")
}

fn local_control(r: &mut GenRng, _s: bool) -> Shape {
    // Vendor LAN/cloud control protocols (Tuya, Kasa, Cast, Yeelight).
    let port = *r.pick(&[6668, 9999, 8009, 55443, 10001]);
    let ob = r.log_int(40, 2000);
    let rb = r.log_int(40, 2000);
    match r.below(4) {
        3 => {
            let d = r.log_real(60.0, 3600.0);
            midstream(r, port, ob + 200, rb + 200, d)
        }
        0 => {
            let d = r.log_real(300.0, 7200.0);
            tcp_session(r, port, None, ob, rb, d, "S1")
        }
        1 => {
            let d = r.log_real(0.02, 5.0);
            tcp_session(r, port, None, ob, rb, d, "SF")
        }
        _ => {
            let d = r.log_real(5.0, 600.0);
            tcp_session(r, port, None, ob, rb, d, "RSTR")
        }
    }
}

fn camera_stream(r: &mut GenRng, _s: bool) -> Shape {
    let port = *r.pick(&[554, 8554, 34567]);
    let ob = r.log_int(500, 20_000);
    let rb = r.log_int(5_000_000, 50_000_000);
    let d = r.log_real(30.0, 3600.0);
    let state = if r.chance(0.7) { "SF" } else { "RSTO" };
    tcp_session(r, port, None, ob, rb, d, state)
}

// ---------------------------------------------------------------- malicious

fn telnet_scan(r: &mut GenRng, _s: bool) -> Shape {
    let port = if r.chance(0.65) { 23 } else { 2323 };
    let syns = if r.chance(0.75) { 1 } else { r.int(2, 3) };
    syn_only(r, port, syns, (0.2, 2.5))
}

fn exploit_probe(r: &mut GenRng, _s: bool) -> Shape {
    let port = *r.pick(&[7547, 5555, 37215, 52869, 81, 8080]);
    match r.below(5) {
        0 => {
            let syns = if port == 8080 { 2 } else { 1 };
            syn_only(r, port, syns, (0.2, 2.5))
        }
        1 | 2 => {
            let syns = r.int(1, 2);
            rejected(r, port, syns)
        }
        _ => {
            let ob = r.log_int(200, 900);
            let rb = r.int(0, 200);
            let d = r.log_real(0.01, 2.0);
            let svc = if port == 5555 { None } else { Some("http") };
            tcp_session(r, port, svc, ob, rb, d, "SF")
        }
    }
}

fn telnet_bruteforce(r: &mut GenRng, _s: bool) -> Shape {
    let port = if r.chance(0.7) { 23 } else { 2323 };
    let op = r.int(8, 30);
    let rp = r.int(6, op);
    let ob = r.int(20, 200);
    let rb = r.int(50, 600);
    let d = r.log_real(1.0, 20.0);
    let state = if r.chance(0.5) { "SF" } else { "RSTO" };
    tcp_session_pkts(r, port, None, ob, rb, d, state, (op, rp))
}

fn ssh_bruteforce(r: &mut GenRng, _s: bool) -> Shape {
    let op = r.int(21, 45);
    let rp = r.int(15, 40);
    let ob = r.log_int(1000, 5000);
    let rb = r.log_int(1000, 5000);
    let d = r.log_real(1.0, 15.0);
    let state = if r.chance(0.5) { "SF" } else { "RSTO" };
    tcp_session_pkts(r, 22, Some("ssh"), ob, rb, d, state, (op, rp))
}

fn c2_beacon(r: &mut GenRng, _s: bool) -> Shape {
    let (port, svc) = match r.below(10) {
        0 => (6667, Some("irc")),
        1 | 2 => (443, None),
        3 => (8443, None),
        4 | 5 => (1883, None),
        6 => (53, None),
        _ => (r.int(10_000, 60_000), None),
    };
    if r.chance(0.25) {
        // A keep-alive control channel held open for a long time.
        let ob = r.log_int(100, 1500);
        let rb = r.log_int(50, 600);
        let d = r.log_real(300.0, 7200.0);
        let state = if r.chance(0.5) { "S1" } else { "SF" };
        return tcp_session(r, port, svc, ob, rb, d, state);
    }
    if r.chance(0.3) {
        // Mid-stream fragment: one packet, no handshake seen.
        return Shape {
            proto: "tcp",
            service: None,
            orig_p: None,
            resp_p: port,
            duration: None,
            orig_bytes: None,
            resp_bytes: None,
            conn_state: "OTH",
            history: Some("C".into()),
            orig_pkts: 1,
            resp_pkts: 0,
        };
    }
    let ob = r.int(20, 300);
    let rb = (ob as f64 * r.real(0.7, 1.4)) as u64;
    let d = r.log_real(0.05, 5.0);
    tcp_session(r, port, svc, ob, rb, d, "SF")
}

fn udp_flood(r: &mut GenRng, sh: bool) -> Shape {
    // Random payloads: Zeek recognises no service even on port 53. Game
    // servers are favourite targets.
    let port = *r.pick(&[53, 80, 443, 27015, 3074, 30120]);
    let svc = None;
    let op = r.log_int(4000, scaled(20_000, sh));
    let per = r.int(1000, 1400);
    let d = micros(op as f64 / r.log_real(100.0, 5000.0));
    let mut s = udp(r, port, svc, (op, 0), (op * per, 0), (0.1, 1.0));
    s.duration = Some(d.max(0.01));
    s
}

fn http_flood(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.log_int(60, 400);
    let rb = r.int(0, 200);
    let d = r.log_real(0.005, 0.5);
    let op = r.int(3, 6);
    let rp = r.int(2, 4);
    let state = *r.pick(&["SF", "RSTO", "RSTR"]);
    tcp_session_pkts(r, 80, Some("http"), ob, rb, d, state, (op, rp))
}

fn malware_download(r: &mut GenRng, sh: bool) -> Shape {
    let ob = r.log_int(80, 250);
    let rb = r.log_int(150_000, scaled(1_500_000, sh));
    let d = r.log_real(1.0, 60.0);
    if r.chance(0.35) {
        return tcp_session(r, 443, Some("ssl"), ob + 250, rb, d, "SF");
    }
    let port = *r.pick(&[80, 8000, 8080]);
    tcp_session(r, port, Some("http"), ob, rb, d, "SF")
}

fn c2_tls_beacon(r: &mut GenRng, _s: bool) -> Shape {
    // The implant uploads more than it receives.
    let port = *r.pick(&[443, 443, 443, 8443, 8883]);
    let ob = r.log_int(800, 3000);
    let rb = r.log_int(150, 600);
    let d = r.log_real(0.1, 5.0);
    // Implants often drop the connection with a reset.
    let state = if r.chance(0.6) { "RSTO" } else { "SF" };
    tcp_session(r, port, Some("ssl"), ob, rb, d, state)
}

fn amp_scan(r: &mut GenRng, _s: bool) -> Shape {
    // Probing for reflectors: one request, one (or a few) replies.
    match r.below(10) {
        0..=5 => {
            let rp = r.int(2, 10);
            let rb = rp * r.int(200, 468);
            udp(r, 123, Some("ntp"), (1, rp), (8, rb), (0.01, 0.5))
        }
        6..=8 => {
            let ob = r.int(90, 130);
            let rp = r.int(1, 4);
            let rb = rp * r.int(250, 400);
            udp(r, 1900, None, (1, rp), (ob, rb), (0.01, 0.5))
        }
        _ => {
            // Unicast mDNS query answered from outside the LAN.
            let ob = r.int(40, 80);
            let rp = r.int(2, 5);
            let rb = rp * r.int(100, 300);
            udp(
                r,
                5353,
                Some("dns"),
                (1, rp),
                (ob, rb.min(590)),
                (0.005, 0.3),
            )
        }
    }
}
