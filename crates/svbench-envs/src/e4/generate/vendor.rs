//! Fictional vendors and partner firms the recipient organisation deals
//! with. They are deliberately not in `brands.toml`: a lookalike of a
//! supplier nobody listed is what invoice fraud and thread hijacks use, and
//! a brand list cannot know every supplier.

use super::rng::GenRng;
use super::slots;

/// A supplier or partner firm.
#[derive(Debug, PartialEq, Eq)]
pub struct Vendor {
    /// `Halvard Industrial Supply`.
    pub name: &'static str,
    /// Its real mail and web domain (a reserved name).
    pub domain: &'static str,
    /// What it sells (`office furniture`).
    pub goods: &'static str,
}

impl Vendor {
    /// The domain's first label (`halvardsupply`).
    pub fn label(&self) -> &'static str {
        self.domain.split('.').next().unwrap_or(self.domain)
    }

    /// A lookalike of the vendor's domain on a reserved TLD.
    pub fn lookalike(&self, rng: &mut GenRng) -> String {
        let label = slots::lookalike_label(rng, self.label());
        let tld = slots::attacker_tld(rng, false);
        format!("{label}.{tld}")
    }
}

/// Invoicing and ticketing platforms vendors route replies through
/// (invented, reserved names).
pub const PLATFORMS: &[&str] = &[
    "invoicing-hub.example",
    "ticketdesk.test",
    "billflow.example",
];

/// The vendor's mailbox on a platform (`halvardsupply@invoicing-hub.example`),
/// marked as the `reply_to_mismatch` its sender meant.
pub fn platform_reply_to(c: &mut super::ctx::Ctx, d: &mut super::draft::Draft) {
    let platform = c.one(PLATFORMS);
    let reply = format!("{}@{platform}", c.vendor.label());
    d.reply_to = Some(reply.clone());
    d.mark_header(
        super::draft::HeaderLine::ReplyTo,
        &reply,
        super::draft::phish("reply_to_mismatch"),
    );
}

/// Vendors of train, dev and test.
pub const VENDORS: &[Vendor] = &[
    Vendor {
        name: "Halvard Industrial Supply",
        domain: "halvardsupply.example",
        goods: "safety equipment",
    },
    Vendor {
        name: "Brookline Packaging",
        domain: "brooklinepack.example",
        goods: "packaging materials",
    },
    Vendor {
        name: "Cedarpoint Logistics",
        domain: "cedarpoint-logistics.test",
        goods: "freight services",
    },
    Vendor {
        name: "Marlow & Penn Consulting",
        domain: "marlowpenn.example",
        goods: "consulting hours",
    },
    Vendor {
        name: "Quenby Lab Instruments",
        domain: "quenbylab.example",
        goods: "lab instruments",
    },
    Vendor {
        name: "Tarrant Facilities Group",
        domain: "tarrantfacilities.example",
        goods: "cleaning and maintenance",
    },
];

/// Vendors of the ood split only.
pub const OOD_VENDORS: &[Vendor] = &[
    Vendor {
        name: "Orrin Print Works",
        domain: "orrinprint.test",
        goods: "printing",
    },
    Vendor {
        name: "Pellucid Water Systems",
        domain: "pellucidwater.test",
        goods: "water treatment servicing",
    },
];

/// The vendors a split draws from.
pub fn pool(ood: bool) -> &'static [Vendor] {
    if ood {
        OOD_VENDORS
    } else {
        VENDORS
    }
}

/// A lookalike of an organisation's mail domain (`acme-corp.example` →
/// `acme-c0rp.example`), keeping its reserved TLD or swapping it for the
/// other one.
pub fn org_lookalike(rng: &mut GenRng, domain: &str) -> String {
    let (label, _) = domain.split_once('.').unwrap_or((domain, "example"));
    let look = slots::lookalike_label(rng, label);
    let tld = slots::attacker_tld(rng, false);
    format!("{look}.{tld}")
}

#[cfg(test)]
mod tests {
    use super::super::rng::stream;
    use super::*;

    #[test]
    fn vendor_domains_are_reserved_and_lookalikes_differ() {
        let mut rng = stream(3, "vendor");
        for v in VENDORS.iter().chain(OOD_VENDORS) {
            assert!(
                v.domain.ends_with(".example") || v.domain.ends_with(".test"),
                "{}",
                v.domain
            );
            for _ in 0..50 {
                let l = v.lookalike(&mut rng);
                assert_ne!(l.split('.').next(), Some(v.label()), "{l}");
                assert!(l.ends_with(".example") || l.ends_with(".test"), "{l}");
            }
        }
        let l = org_lookalike(&mut rng, "acme-corp.example");
        assert!(!l.starts_with("acme-corp."), "{l}");
    }
}
