//! Seeded slot lists: people, recipient organisations, dates, amounts,
//! reference numbers, and the attacker infrastructure derived from a brand
//! (lookalike domains, suspicious TLDs, shorteners, documentation IPs).
//! Everything is fiction: official domains are reserved names, attacker
//! domains are derived from fictional brands, IPs are documentation ranges.

use super::rng::{chance, one, GenRng};

const FIRST: &[&str] = &[
    "Dana", "Marco", "Priya", "Tomasz", "Aiko", "Lena", "Samir", "Grace", "Jonah", "Ines", "Kwame",
    "Freya", "Rafael", "Mei", "Oskar", "Talia", "Yusuf", "Clara", "Nikhil", "Elena", "Bruno",
    "Hana", "Felix", "Amara",
];
const LAST: &[&str] = &[
    "Ortiz",
    "Lindqvist",
    "Shah",
    "Nowak",
    "Tanaka",
    "Moreau",
    "Haddad",
    "Okafor",
    "Brennan",
    "Castillo",
    "Adeyemi",
    "Halvorsen",
    "Pereira",
    "Zhou",
    "Fischer",
    "Levin",
    "Demir",
    "Novak",
    "Iyer",
    "Rossi",
    "Kowalski",
    "Sato",
    "Mensah",
    "Quinn",
];

/// A recipient organisation: display name and mail domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Org {
    /// `Acme Corp`.
    pub name: &'static str,
    /// `acme-corp.example`.
    pub domain: &'static str,
}

/// Organisations of train, dev and test.
pub const ORGS: &[Org] = &[
    Org {
        name: "Acme Corp",
        domain: "acme-corp.example",
    },
    Org {
        name: "Brightwater Labs",
        domain: "brightwater-labs.example",
    },
    Org {
        name: "Harborview Clinic",
        domain: "harborview-clinic.example",
    },
    Org {
        name: "Redfern Logistics",
        domain: "redfern-logistics.example",
    },
    Org {
        name: "Osprey Analytics",
        domain: "osprey-analytics.example",
    },
    Org {
        name: "Quillon Legal",
        domain: "quillon-legal.test",
    },
];

/// Organisations of the ood split.
pub const OOD_ORGS: &[Org] = &[
    Org {
        name: "Meridian Schools",
        domain: "meridian-schools.test",
    },
    Org {
        name: "Tidewell Energy",
        domain: "tidewell-energy.test",
    },
];

/// Free-mail providers (fictional; the extractor's free-mail list must hold
/// them for `freemail_corporate` to fire).
pub const FREEMAIL: &[&str] = &["freemail.example", "inboxly.test", "postbox-mail.example"];
/// Third-party link shorteners (in the extractor's shortener list).
pub const SHORTENERS: &[&str] = &["bit.ly", "tinyurl.com", "is.gd", "cutt.ly", "rb.gy"];
/// TLDs the extractor treats as suspicious.
pub const SUSPICIOUS_TLDS: &[&str] = &["top", "xyz", "click", "icu"];
/// Words for attacker hosts that claim no brand.
const NEUTRAL_WORDS: &[&str] = &[
    "secure", "account", "portal", "review", "notice", "center", "online", "service", "update",
    "access", "files", "client", "support", "case",
];

/// A person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// First name.
    pub first: String,
    /// Last name.
    pub last: String,
}

impl Person {
    /// A random person.
    pub fn draw(rng: &mut GenRng) -> Person {
        Person {
            first: one(rng, FIRST),
            last: one(rng, LAST),
        }
    }

    /// `Dana Ortiz`.
    pub fn full(&self) -> String {
        format!("{} {}", self.first, self.last)
    }

    /// `dana.ortiz@domain`.
    pub fn address(&self, domain: &str) -> String {
        format!(
            "{}.{}@{domain}",
            self.first.to_lowercase(),
            self.last.to_lowercase()
        )
    }
}

/// An RFC 5322 date in 2025 (weekday computed, `+0000`).
pub fn date(rng: &mut GenRng) -> String {
    let secs = 1_735_689_600 + rng.below(365 * 86_400) as i64;
    chrono::DateTime::from_timestamp(secs, 0)
        .expect("2025 is representable")
        .format("%a, %d %b %Y %H:%M:%S +0000")
        .to_string()
}

/// A calendar day in 2025 as prose (`14 March`).
pub fn day(rng: &mut GenRng) -> String {
    let months = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    format!("{} {}", rng.int(1, 28), rng.pick(&months))
}

/// An amount like `$1,284.50`.
pub fn amount(rng: &mut GenRng, lo: u64, hi: u64) -> String {
    let cents = rng.int(lo * 100, hi * 100);
    let whole = cents / 100;
    let grouped = if whole >= 1000 {
        format!("{},{:03}", whole / 1000, whole % 1000)
    } else {
        whole.to_string()
    };
    format!("${grouped}.{:02}", cents % 100)
}

/// `prefix` followed by `digits` random digits.
pub fn reference(rng: &mut GenRng, prefix: &str, digits: u32) -> String {
    let n = rng.below(10u64.pow(digits));
    format!("{prefix}{n:0width$}", width = digits as usize)
}

/// A random lower-case alphanumeric token.
pub fn token(rng: &mut GenRng, len: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    (0..len)
        .map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize] as char)
        .collect()
}

/// A documentation-range IPv4 address.
pub fn doc_ip(rng: &mut GenRng) -> String {
    let net = one(rng, &["203.0.113", "198.51.100", "192.0.2"]);
    format!("{net}.{}", rng.int(2, 250))
}

/// A TLD for an attacker domain: suspicious, or a reserved one.
pub fn attacker_tld(rng: &mut GenRng, suspicious: bool) -> String {
    if suspicious {
        one(rng, SUSPICIOUS_TLDS)
    } else {
        one(rng, &["example", "test"])
    }
}

/// A host that claims no brand: `review-portal-4821.example`.
pub fn neutral_domain(rng: &mut GenRng, suspicious: bool) -> String {
    let a = one(rng, NEUTRAL_WORDS);
    let mut b = one(rng, NEUTRAL_WORDS);
    while b == a {
        b = one(rng, NEUTRAL_WORDS);
    }
    let tld = attacker_tld(rng, suspicious);
    if chance(rng, 50) {
        format!("{a}-{b}.{tld}")
    } else {
        format!("{a}-{b}{}.{tld}", rng.int(2, 99))
    }
}

/// A lookalike of `label` (a brand label of at least 5 letters) by one or
/// two character edits, a digit/letter swap, or a hyphenated brand token.
/// Never returns `label` itself.
pub fn lookalike_label(rng: &mut GenRng, label: &str) -> String {
    let chars: Vec<char> = label.chars().collect();
    for _ in 0..16 {
        let out = match rng.below(7) {
            // Digit/letter swaps the eye folds back: o→0, l→1, i→l, e→3.
            0 => swap_first(&chars, &[('o', "0"), ('l', "1"), ('i', "l"), ('e', "3")]),
            // Letter pairs that read as one letter.
            1 => swap_first(&chars, &[('m', "rn"), ('w', "vv"), ('d', "cl")]),
            // A dropped letter.
            2 => {
                let i = 1 + rng.below(chars.len() as u64 - 2) as usize;
                let mut c = chars.clone();
                c.remove(i);
                c.into_iter().collect()
            }
            // A doubled letter.
            3 => {
                let i = 1 + rng.below(chars.len() as u64 - 1) as usize;
                let mut c = chars.clone();
                c.insert(i, chars[i]);
                c.into_iter().collect()
            }
            // Two neighbours transposed.
            4 => {
                let i = 1 + rng.below(chars.len() as u64 - 2) as usize;
                let mut c = chars.clone();
                c.swap(i, i + 1);
                c.into_iter().collect()
            }
            // The brand as a hyphenated token of a foreign name.
            5 => format!(
                "{label}-{}",
                one(rng, &["secure", "login", "support", "verify", "online"])
            ),
            // A hyphen inside the brand plus a swapped letter.
            _ => {
                let i = 2 + rng.below(chars.len() as u64 - 4) as usize;
                let mut c = chars.clone();
                c.insert(i, '-');
                let s: String = c.into_iter().collect();
                swap_first(&s.chars().collect::<Vec<_>>(), &[('i', "l"), ('o', "0")])
            }
        };
        if out != label && !out.is_empty() {
            return out;
        }
    }
    format!("{label}-secure")
}

/// `chars` with the first letter that has a swap replaced; unchanged if none.
fn swap_first(chars: &[char], swaps: &[(char, &str)]) -> String {
    for (i, c) in chars.iter().enumerate().skip(1) {
        if let Some((_, to)) = swaps.iter().find(|(from, _)| from == c) {
            let mut s: String = chars[..i].iter().collect();
            s.push_str(to);
            s.extend(&chars[i + 1..]);
            return s;
        }
    }
    chars.iter().collect()
}

/// The brand label with one Latin letter replaced by a Cyrillic confusable
/// (a non-ASCII, punycode-encoded domain on the wire).
pub fn confusable_label(label: &str) -> String {
    const SWAPS: &[(char, char)] = &[('o', 'о'), ('a', 'а'), ('e', 'е'), ('c', 'с'), ('p', 'р')];
    let mut out = String::new();
    let mut done = false;
    for c in label.chars() {
        match SWAPS.iter().find(|(l, _)| *l == c) {
            Some((_, cy)) if !done => {
                out.push(*cy);
                done = true;
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::rng::stream;
    use super::*;

    #[test]
    fn lookalikes_differ_and_stay_close() {
        let mut rng = stream(1, "lookalike");
        for _ in 0..500 {
            let l = lookalike_label(&mut rng, "northwindbank");
            assert_ne!(l, "northwindbank");
            assert!(
                l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
                "{l}"
            );
        }
        assert_eq!(confusable_label("contoso"), "сontoso");
        assert!(!confusable_label("tailspindocs").is_ascii());
    }

    #[test]
    fn slots_are_well_formed() {
        let mut rng = stream(2, "slots");
        let d = date(&mut rng);
        assert!(d.ends_with(" 2025 ") || d.contains(" 2025 "), "{d}");
        assert!(amount(&mut rng, 1000, 9000).contains(','));
        assert_eq!(reference(&mut rng, "INV-", 4).len(), 8);
        assert!(doc_ip(&mut rng).split('.').count() == 4);
    }
}
