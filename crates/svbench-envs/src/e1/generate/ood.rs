//! Families that appear only in the ood split (E1 §6.2): enterprise benign
//! traffic and attack families absent from train/dev/test.

use super::families::{Domain, Family};
use super::rng::GenRng;
use super::shape::{rejected, syn_only, tcp_session, udp, Shape};
use crate::e1::Gold;

const B: Gold = Gold::Benign;
const M: Gold = Gold::Malicious;
const OOD: Domain = Domain::OodOnly;

/// The ood-only catalogue.
pub const OOD_FAMILIES: &[Family] = &[
    // ---- benign enterprise traffic ----
    Family {
        id: "smb_share",
        label: B,
        weight: 1.0,
        domain: OOD,
        draw: smb_share,
    },
    Family {
        id: "rdp_session",
        label: B,
        weight: 0.7,
        domain: OOD,
        draw: rdp_session,
    },
    Family {
        id: "ldap_query",
        label: B,
        weight: 0.7,
        domain: OOD,
        draw: ldap_query,
    },
    Family {
        id: "kerberos_auth",
        label: B,
        weight: 0.7,
        domain: OOD,
        draw: kerberos_auth,
    },
    Family {
        id: "enterprise_dns",
        label: B,
        weight: 0.8,
        domain: OOD,
        draw: enterprise_dns,
    },
    Family {
        id: "enterprise_https",
        label: B,
        weight: 1.0,
        domain: OOD,
        draw: enterprise_https,
    },
    // ---- attacks unseen in train/dev/test ----
    Family {
        id: "exfiltration",
        label: M,
        weight: 1.0,
        domain: OOD,
        draw: exfiltration,
    },
    Family {
        id: "dns_tunnel",
        label: M,
        weight: 1.0,
        domain: OOD,
        draw: dns_tunnel,
    },
    Family {
        id: "cryptominer",
        label: M,
        weight: 1.0,
        domain: OOD,
        draw: cryptominer,
    },
    Family {
        id: "smb_worm_scan",
        label: M,
        weight: 1.0,
        domain: OOD,
        draw: smb_worm_scan,
    },
];

fn smb_share(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.log_int(1_000, 500_000);
    let rb = r.log_int(1_000, 2_000_000);
    let d = r.log_real(0.1, 600.0);
    tcp_session(r, 445, Some("smb"), ob, rb, d, "SF")
}

fn rdp_session(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.log_int(20_000, 2_000_000);
    let rb = r.log_int(100_000, 20_000_000);
    let d = r.log_real(60.0, 7200.0);
    tcp_session(r, 3389, Some("rdp"), ob, rb, d, "SF")
}

fn ldap_query(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.log_int(100, 3000);
    let rb = r.log_int(200, 20_000);
    if r.chance(0.3) {
        udp(
            r,
            389,
            Some("ldap"),
            (1, 1),
            (ob, rb.min(1400)),
            (0.0005, 0.05),
        )
    } else {
        let d = r.log_real(0.01, 5.0);
        tcp_session(r, 389, Some("ldap"), ob, rb, d, "SF")
    }
}

fn kerberos_auth(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.log_int(200, 1500);
    let rb = r.log_int(300, 1800);
    if r.chance(0.6) {
        udp(r, 88, Some("krb"), (1, 1), (ob, rb), (0.0005, 0.05))
    } else {
        let d = r.log_real(0.005, 1.0);
        tcp_session(r, 88, Some("krb_tcp"), ob, rb, d, "SF")
    }
}

fn enterprise_dns(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.int(28, 80);
    let rb = r.log_int(44, 480);
    udp(r, 53, Some("dns"), (1, 1), (ob, rb), (0.0003, 0.1))
}

fn enterprise_https(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.log_int(600, 50_000);
    let rb = r.log_int(1_000, 5_000_000);
    let d = r.log_real(0.1, 300.0);
    tcp_session(r, 443, Some("ssl"), ob, rb, d, "SF")
}

fn exfiltration(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.log_int(5_000_000, 200_000_000);
    let rb = r.log_int(10_000, 500_000);
    let d = r.log_real(60.0, 3600.0);
    tcp_session(r, 443, Some("ssl"), ob, rb, d, "SF")
}

fn dns_tunnel(r: &mut GenRng, _s: bool) -> Shape {
    let ob = r.int(120, 255);
    let rb = r.int(60, 400);
    udp(r, 53, Some("dns"), (1, 1), (ob, rb), (0.0005, 0.3))
}

fn cryptominer(r: &mut GenRng, _s: bool) -> Shape {
    let port = *r.pick(&[3333, 4444, 14444]);
    let ob = r.log_int(2_000, 200_000);
    let rb = r.log_int(2_000, 200_000);
    let d = r.log_real(600.0, 20_000.0);
    let state = if r.chance(0.6) { "SF" } else { "S1" };
    tcp_session(r, port, None, ob, rb, d, state)
}

fn smb_worm_scan(r: &mut GenRng, _s: bool) -> Shape {
    if r.chance(0.6) {
        let syns = r.int(1, 3);
        syn_only(r, 445, syns, (1.0, 9.0))
    } else {
        let syns = r.int(1, 2);
        rejected(r, 445, syns)
    }
}
