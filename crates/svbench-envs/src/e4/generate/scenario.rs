//! One scenario, from its seeds to a finished email with its indicator
//! accounting: the slots a group shares, the role a member plays, and the
//! checks (citable spans, at most 10 per set) a scenario must pass.

use std::collections::BTreeSet;

use super::ambiguous::{archetype, Archetype};
use super::brands::{self, Brand};
use super::ctx::{soft, Ctx, Role};
use super::draft::{word_bounded, Built};
use super::families::{self, Family};
use super::rng::{chance, stream, weighted, GenRng};
use super::slots::{Org, Person, OOD_ORGS, ORGS};
use super::vendor::{self, Vendor};
use crate::e4::Polarity;

/// Most spans per relevant set (`evidence_max_items`).
pub const MAX_SPANS: usize = 10;

/// What a group's members share: brand, organisation and people.
#[derive(Debug, Clone)]
pub struct Slots {
    /// The brand written about (`None`: internal mail).
    pub brand: Option<&'static Brand>,
    /// Recipient organisation.
    pub org: Org,
    /// Recipient.
    pub recipient: Person,
    /// Second person.
    pub colleague: Person,
    /// The vendor or partner written as (families drawn in every split).
    pub vendor: Option<&'static Vendor>,
    /// `meta.language`.
    pub language: &'static str,
}

/// Brands `family` may use in a split.
pub fn brand_pool(family: &Family, ood: bool) -> &'static [&'static str] {
    if ood {
        family.ood_brands
    } else {
        family.brands
    }
}

/// Families a split draws from: train/dev/test never see ood-only ones;
/// ood sees them, the families that have ood brands, and those drawn
/// everywhere.
pub fn families_for(ood: bool) -> Vec<&'static Family> {
    families::FAMILIES
        .iter()
        .filter(|f| {
            if ood {
                f.ood_only || f.everywhere || !f.ood_brands.is_empty()
            } else {
                !f.ood_only
            }
        })
        .collect()
}

/// Draws a group's shared slots.
pub fn draw_slots(rng: &mut GenRng, family: &Family, ood: bool) -> Slots {
    let pool = brand_pool(family, ood);
    let brand =
        (!pool.is_empty()).then(|| brands::brand(pool[rng.below(pool.len() as u64) as usize]));
    let org = *rng.pick(if ood { OOD_ORGS } else { ORGS });
    let recipient = Person::draw(rng);
    let colleague = loop {
        let p = Person::draw(rng);
        if p.first != recipient.first {
            break p;
        }
    };
    let vendor = family.everywhere.then(|| rng.pick(vendor::pool(ood)));
    // English half the time, the other languages evenly.
    let others = family.languages.len() as u64 - 1;
    let weights: Vec<u64> = family
        .languages
        .iter()
        .map(|l| if *l == "en" { 4 * others.max(1) } else { 4 })
        .collect();
    let language = family.languages[weighted(rng, &weights)];
    Slots {
        brand,
        org,
        recipient,
        colleague,
        vendor,
        language,
    }
}

/// A finished scenario and what it carries.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The email, its rendering and spans.
    pub built: Built,
    /// Hard indicator categories present (phish spans, weak greeting aside).
    pub hard: Vec<&'static str>,
    /// Soft indicators present (legitimate rows).
    pub soft: Vec<&'static str>,
}

fn ctx(rng: GenRng, slots: &Slots, role: Role) -> Ctx {
    Ctx {
        rng,
        // Internal families never read the brand; any fictional one will do.
        brand: slots
            .brand
            .unwrap_or_else(|| brands::brand("Fabrikam Supplies")),
        org: slots.org,
        recipient: slots.recipient.clone(),
        colleague: slots.colleague.clone(),
        role,
        sender_domain: String::new(),
        vendor: slots.vendor.unwrap_or(&vendor::VENDORS[0]),
        lang: slots.language,
    }
}

/// The phish categories present in a built email (merged ones included),
/// without the weak generic greeting.
fn hard_present(built: &Built) -> Vec<&'static str> {
    let set: BTreeSet<&'static str> = built
        .spans
        .iter()
        .filter(|s| s.polarity == Polarity::Phish)
        .flat_map(|s| s.categories.iter().copied())
        .filter(|c| *c != "generic_greeting")
        .collect();
    set.into_iter().collect()
}

/// Whether every span is citable and each relevant set fits the item cap.
pub fn citable(built: &Built, ambiguous: bool) -> bool {
    let chars: Vec<char> = built.question.chars().collect();
    let ok = built.spans.iter().all(|s| {
        let n = s.end - s.start;
        (4..=200).contains(&n) && word_bounded(&chars, s.start, s.end)
    });
    let count = |p: Polarity| built.spans.iter().filter(|s| s.polarity == p).count();
    let cap = if ambiguous {
        built.spans.len() <= MAX_SPANS
    } else {
        count(Polarity::Phish) <= MAX_SPANS && count(Polarity::Benign) <= MAX_SPANS
    };
    ok && cap
}

/// A legitimate member: soft indicators drawn (0, 1 or 2), then kept only
/// where the template could place them.
pub fn legit(family: &Family, slots: &Slots, seed: u64) -> Scenario {
    let mut rng = stream(seed, "legitimate");
    for _ in 0..32 {
        let want = weighted(&mut rng, &[45, 35, 20]);
        let mut options: Vec<&'static str> = family
            .soft
            .iter()
            .copied()
            .filter(|s| {
                *s != soft::BRAND_SHORTENER || slots.brand.is_some_and(|b| !b.shorteners.is_empty())
            })
            .collect();
        rng.shuffle(&mut options);
        let chosen: BTreeSet<&'static str> = options.into_iter().take(want).collect();
        let sub = stream(rng.next_u64(), "write");
        let mut c = ctx(sub, slots, Role::Legit(chosen.clone()));
        let built = (family.write)(&mut c).finish();
        let soft: Vec<&'static str> = chosen
            .into_iter()
            .filter(|s| soft_present(s, &built, slots))
            .collect();
        if citable(&built, false) {
            return Scenario {
                built,
                hard: Vec::new(),
                soft,
            };
        }
    }
    panic!(
        "family {} cannot write a citable legitimate email",
        family.id
    )
}

fn soft_present(name: &str, built: &Built, slots: &Slots) -> bool {
    let has = |cat: &str| built.spans.iter().any(|s| s.category == cat);
    match name {
        soft::EXPIRY | soft::ALARM => has("urgency_threat"),
        soft::GREETING => has("generic_greeting"),
        soft::PAYMENT_WORDING => has("payment_request"),
        soft::CREDENTIAL_WORDING => has("credential_request"),
        soft::PLATFORM_REPLY_TO => has("reply_to_mismatch"),
        soft::BRAND_SHORTENER => slots.brand.is_some_and(|b| {
            b.shorteners
                .iter()
                .any(|s| built.question.contains(&format!("https://{s}/")))
        }),
        _ => false,
    }
}

/// A phishing member: k hard indicators (1–4, k=2 most often; 1–3, k=1
/// most often, in the later families) from the family's list, plus
/// sometimes the weak generic greeting.
pub fn phishing(family: &Family, slots: &Slots, seed: u64) -> Scenario {
    let mut rng = stream(seed, "phishing");
    for _ in 0..64 {
        // The later families carry fewer tells: one most often.
        let weights: &[u64] = if family.extractor_worded {
            &[30, 35, 25, 10]
        } else {
            &[55, 30, 15, 0]
        };
        let k = 1 + weighted(&mut rng, weights);
        let mut options: Vec<&'static str> = family
            .hard
            .iter()
            .copied()
            .filter(|c| *c != "generic_greeting")
            .collect();
        rng.shuffle(&mut options);
        let mut chosen: BTreeSet<&'static str> = options.into_iter().take(k).collect();
        if family.hard.contains(&"generic_greeting") && chance(&mut rng, 25) {
            chosen.insert("generic_greeting");
        }
        let sub = stream(rng.next_u64(), "write");
        let mut c = ctx(sub, slots, Role::Phish(chosen));
        let built = (family.write)(&mut c).finish();
        let hard = hard_present(&built);
        if !hard.is_empty() && citable(&built, false) {
            return Scenario {
                built,
                hard,
                soft: Vec::new(),
            };
        }
    }
    panic!("family {} cannot write a citable phishing email", family.id)
}

/// Seeds of an ambiguous item: the shared surface and each scenario's
/// hidden facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmbiguousSeeds {
    /// Slots and wording of the visible email.
    pub surface: u64,
    /// The legitimate scenario's hidden facts.
    pub legitimate: u64,
    /// The phishing scenario's hidden facts.
    pub phishing: u64,
}

/// One side of an ambiguous item: what the reader sees, and the fact they
/// cannot see.
#[derive(Debug, Clone)]
pub struct AmbiguousSide {
    /// The email.
    pub built: Built,
    /// What is true in this scenario.
    pub story: &'static str,
}

/// Both scenarios of an ambiguous item, regenerated from its seeds. `ood`
/// selects the ood split's brand and organisation pools.
///
/// # Panics
/// On an unknown archetype id.
pub fn ambiguous_pair(
    archetype_id: &str,
    ood: bool,
    seeds: AmbiguousSeeds,
) -> (AmbiguousSide, AmbiguousSide) {
    let arch = archetype(archetype_id).unwrap_or_else(|| panic!("archetype `{archetype_id}`"));
    let side = |seed: u64, stories: &'static [&'static str]| {
        let mut hidden = stream(seed, "hidden");
        AmbiguousSide {
            built: surface(arch, ood, seeds.surface),
            story: stories[hidden.below(stories.len() as u64) as usize],
        }
    };
    (
        side(seeds.legitimate, arch.legit_stories),
        side(seeds.phishing, arch.phish_stories),
    )
}

/// The visible email of an ambiguous item.
pub fn surface(arch: &Archetype, ood: bool, seed: u64) -> Built {
    let family = families::family(arch.family);
    let mut rng = stream(seed, "surface");
    let slots = draw_slots(&mut rng, family, ood);
    let mut c = ctx(rng, &slots, Role::Ambiguous);
    (arch.surface)(&mut c).finish()
}

/// The brand (or vendor) name a family's slots use, for `meta.brand`.
pub fn brand_name(slots: &Slots) -> Option<&'static str> {
    slots
        .brand
        .map(|b| b.name.as_str())
        .or(slots.vendor.map(|v| v.name))
}
