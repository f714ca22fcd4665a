//! Security gateways: some recipient organisations have every link of an
//! incoming message rewritten to pass through a scanning host, as many mail
//! gateways do. A rewritten link's visible text still shows where it goes,
//! so a legitimate link whose text is its own URL no longer matches its
//! target. Gateway hosts are invented, under reserved names.

use super::ctx::Ctx;
use super::draft::Piece;
use super::slots;

/// Organisations whose gateway rewrites links, and the gateway host.
pub const GATEWAYS: &[(&str, &str)] = &[
    ("acme-corp.example", "protect.linkscan.example"),
    ("harborview-clinic.example", "urldefense.mailguard.example"),
    ("osprey-analytics.example", "safelinks.inboxguard.test"),
    ("quillon-legal.test", "protect.linkscan.example"),
    ("tidewell-energy.test", "urldefense.mailguard.example"),
];

/// `link` as the recipient's gateway delivers it (unchanged without one).
/// The original URL stays readable inside the rewritten one, so a domain
/// mark on it is still found; an aligned-link anchor no longer holds.
pub fn gateway(c: &mut Ctx, link: Piece) -> Piece {
    let Some((_, gw)) = GATEWAYS.iter().find(|(org, _)| *org == c.org.domain) else {
        return link;
    };
    match link {
        Piece::Link(mut l) => {
            let token = slots::token(&mut c.rng, 10);
            l.href = format!("https://{gw}/v3/__{}__;!!{token}$", l.href);
            l.url.clear();
            Piece::Link(l)
        }
        other => other,
    }
}

/// A legitimate link whose text is, half the time, its own URL (as plain
/// HTML mail often writes it).
pub fn url_text(c: &mut Ctx, link: Piece) -> Piece {
    match link {
        Piece::Link(mut l) if l.whole.is_empty() && c.chance(50) => {
            l.visible = l.href.clone();
            Piece::Link(l)
        }
        other => other,
    }
}
