//! What a template writes with: the drawn slots, the role (legitimate with
//! soft indicators, phishing with hard ones, or an ambiguous surface) and the
//! helpers that turn an indicator into marked header or body text.

use std::collections::BTreeSet;

use svbench_mail::Attachment;

use super::brands::Brand;
use super::draft::{benign, phish, Draft, HeaderLine, LinkPiece, Mark, Piece};
use super::rng::{chance, one, GenRng};
use super::slots::{self, Org, Person};
use super::vendor::Vendor;

/// What the email is written as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// A legitimate email with these soft indicators.
    Legit(BTreeSet<&'static str>),
    /// A phishing email with these hard indicator categories.
    Phish(BTreeSet<&'static str>),
    /// An ambiguous surface (written from the legitimate side).
    Ambiguous,
}

/// Soft indicators a legitimate email may carry.
pub mod soft {
    /// An expiry window on a link (`urgency_threat` wording).
    pub const EXPIRY: &str = "expiry_window";
    /// The brand's own link shortener (not an indicator for the extractor).
    pub const BRAND_SHORTENER: &str = "brand_shortener";
    /// Alarm wording in a real alert (`urgency_threat` wording).
    pub const ALARM: &str = "real_alarm";
    /// `Dear customer,`.
    pub const GREETING: &str = "generic_greeting";
    /// A routine request about money from the real sender
    /// (`payment_request` wording).
    pub const PAYMENT_WORDING: &str = "payment_wording";
    /// A real sender's sign-in or reset wording (`credential_request`
    /// wording).
    pub const CREDENTIAL_WORDING: &str = "credential_wording";
    /// Replies routed to the sender's own invoicing or ticketing platform on
    /// another domain (a `reply_to_mismatch` the sender meant).
    pub const PLATFORM_REPLY_TO: &str = "platform_reply_to";
}

/// Slots and role of one email.
#[derive(Debug)]
pub struct Ctx {
    /// The scenario's randomness.
    pub rng: GenRng,
    /// The brand written about.
    pub brand: &'static Brand,
    /// The recipient's organisation.
    pub org: Org,
    /// The recipient.
    pub recipient: Person,
    /// A second person (executive, HR contact, sharer).
    pub colleague: Person,
    /// The role.
    pub role: Role,
    /// The From domain once chosen.
    pub sender_domain: String,
    /// The vendor or partner (families drawn in every split).
    pub vendor: &'static Vendor,
    /// The language written in (`en`, `pt`, `es`, `fr`, `de`).
    pub lang: &'static str,
}

impl Ctx {
    /// Whether a phishing email carries hard indicator `cat`.
    pub fn has(&self, cat: &str) -> bool {
        matches!(&self.role, Role::Phish(h) if h.contains(cat))
    }

    /// Whether a legitimate email carries soft indicator `name`.
    pub fn soft(&self, name: &str) -> bool {
        matches!(&self.role, Role::Legit(s) if s.contains(name))
    }

    /// Phishing role.
    pub fn is_phish(&self) -> bool {
        matches!(self.role, Role::Phish(_))
    }

    /// One of `items`.
    pub fn one(&mut self, items: &[&str]) -> String {
        one(&mut self.rng, items)
    }

    /// True with `percent` % probability.
    pub fn chance(&mut self, percent: u64) -> bool {
        chance(&mut self.rng, percent)
    }

    /// A draft with To, Date and Subject set.
    pub fn draft(&mut self, subject: String) -> Draft {
        Draft {
            to: self.recipient.address(self.org.domain),
            date: slots::date(&mut self.rng),
            subject,
            ..Draft::default()
        }
    }

    /// From a brand mailbox: official for legitimate and ambiguous emails,
    /// attacker-controlled for phishing. `generic` is a display name that
    /// claims no brand, used when `display_name_mismatch` is not drawn.
    pub fn brand_sender(&mut self, d: &mut Draft, local: &str, generic: &str) {
        if self.is_phish() {
            let display = if self.has("display_name_mismatch") {
                let names: Vec<&str> = self.brand.all_names().collect();
                self.one(&names)
            } else {
                generic.to_string()
            };
            self.phish_sender(d, &display, local);
        } else {
            let names: Vec<&str> = self.brand.all_names().collect();
            let display = self.one(&names);
            let domain = self.brand.domain().to_string();
            self.official_sender(d, &display, local, &domain, "sender_brand_match");
        }
    }

    /// From an address of the recipient's own organisation.
    pub fn internal_sender(&mut self, d: &mut Draft, display: &str, local: &str) {
        let domain = self.org.domain.to_string();
        self.official_sender(d, display, local, &domain, "internal_sender");
    }

    fn official_sender(
        &mut self,
        d: &mut Draft,
        display: &str,
        local: &str,
        domain: &str,
        anchor: &'static str,
    ) {
        d.from = format!("{display} <{local}@{domain}>");
        d.mark_header(HeaderLine::From, domain, benign(anchor));
        self.sender_domain = domain.to_string();
        if self.chance(55) {
            let segment = format!("spf=pass smtp.mailfrom={domain}; dkim=pass header.d={domain}");
            d.auth = Some(format!("mx.{}; {segment}", self.org.domain));
            d.mark_header(HeaderLine::Auth, &segment, benign("auth_aligned_pass"));
        }
    }

    /// An attacker's From line for the drawn indicators.
    pub fn phish_sender(&mut self, d: &mut Draft, display: &str, local: &str) {
        let (domain, marks) = if self.has("freemail_corporate") {
            (self.one(slots::FREEMAIL), vec![])
        } else {
            self.attacker_domain(true)
        };
        let address = format!("{local}@{domain}");
        d.from = format!("{display} <{address}>");
        for m in marks {
            d.mark_header(HeaderLine::From, &domain, m);
        }
        if self.has("freemail_corporate") {
            d.mark_header(HeaderLine::From, &address, phish("freemail_corporate"));
        }
        if self.has("display_name_mismatch") {
            let value = d.from.clone();
            d.mark_header(HeaderLine::From, &value, phish("display_name_mismatch"));
        }
        self.sender_domain = domain.clone();
        if self.has("reply_to_mismatch") {
            let who = Person::draw(&mut self.rng);
            let free = self.one(slots::FREEMAIL);
            let reply = if free == domain {
                who.address(&slots::neutral_domain(&mut self.rng, false))
            } else {
                who.address(&free)
            };
            d.reply_to = Some(reply.clone());
            d.mark_header(HeaderLine::ReplyTo, &reply, phish("reply_to_mismatch"));
        }
        if self.chance(35) {
            let result = self.one(&["softfail", "neutral", "none"]);
            d.auth = Some(format!(
                "mx.{}; spf={result} smtp.mailfrom={domain}; dkim=none",
                self.org.domain
            ));
        }
    }

    /// A domain the attacker controls and the marks it carries: a
    /// confusable (punycode) or lookalike of the brand when drawn, else a
    /// neutral name; a suspicious TLD when drawn.
    pub fn attacker_domain(&mut self, for_sender: bool) -> (String, Vec<Mark>) {
        let tld_bad = self.has("suspicious_tld");
        let tld = slots::attacker_tld(&mut self.rng, tld_bad);
        let mut marks = Vec::new();
        let domain = if self.has("punycode_domain") {
            marks.push(phish("punycode_domain"));
            marks.push(phish("lookalike_domain"));
            format!("{}.{tld}", slots::confusable_label(self.brand.label()))
        } else if self.has("lookalike_domain") {
            marks.push(phish("lookalike_domain"));
            let label = slots::lookalike_label(&mut self.rng, self.brand.label());
            if !for_sender && self.chance(30) {
                // The brand as a subdomain of a foreign name.
                let base = slots::neutral_domain(&mut self.rng, tld_bad);
                format!("{}.{base}", self.brand.label())
            } else {
                format!("{label}.{tld}")
            }
        } else {
            slots::neutral_domain(&mut self.rng, tld_bad)
        };
        if tld_bad {
            marks.push(phish("suspicious_tld"));
        }
        (domain, marks)
    }

    /// Attackers own their domains: their mail often passes SPF and DKIM
    /// aligned with the attacker's `domain` (45 % of the time).
    pub fn attacker_auth_pass(&mut self, d: &mut Draft, domain: &str) {
        if self.chance(45) {
            d.auth = Some(format!(
                "mx.{}; spf=pass smtp.mailfrom={domain}; dkim=pass header.d={domain}",
                self.org.domain
            ));
        }
    }

    /// The call-to-action link: the brand's own site (legitimate), or the
    /// attacker's (phishing) with the drawn link indicators.
    pub fn link(&mut self, visible: &str, path: &str) -> Piece {
        if !self.is_phish() {
            let host = if self.soft(soft::BRAND_SHORTENER) && !self.brand.shorteners.is_empty() {
                let s = self.brand.shorteners[0].clone();
                let t = slots::token(&mut self.rng, 6);
                return self.aligned(visible, format!("https://{s}/{t}"));
            } else if self.chance(30) {
                format!("www.{}", self.brand.domain())
            } else {
                self.brand.domain().to_string()
            };
            return self.aligned(visible, format!("https://{host}/{path}"));
        }
        let mut piece = LinkPiece {
            visible: visible.to_string(),
            href: String::new(),
            whole: vec![],
            url: vec![],
            host: None,
        };
        if self.has("ip_url") {
            let ip = slots::doc_ip(&mut self.rng);
            piece.href = format!("http://{ip}/{path}");
            piece.url.push(phish("ip_url"));
        } else if self.has("url_shortener") {
            let s = self.one(slots::SHORTENERS);
            piece.href = format!("https://{s}/{}", slots::token(&mut self.rng, 7));
            piece.url.push(phish("url_shortener"));
        } else {
            let (host, marks) = if self.sender_is_lookalike() {
                let marks = self.lookalike_marks(&self.sender_domain.clone());
                (self.sender_domain.clone(), marks)
            } else {
                self.attacker_domain(false)
            };
            piece.href = format!("https://{host}/{path}");
            if !marks.is_empty() {
                piece.host = Some((host, marks));
            }
        }
        if self.has("link_text_mismatch") {
            piece.visible = if self.chance(50) {
                format!("https://{}/{path}", self.brand.domain())
            } else {
                format!("www.{}", self.brand.domain())
            };
            piece.whole.push(phish("link_text_mismatch"));
        }
        Piece::Link(piece)
    }

    fn aligned(&mut self, visible: &str, href: String) -> Piece {
        Piece::Link(LinkPiece {
            visible: visible.to_string(),
            href,
            whole: vec![],
            url: vec![benign("aligned_links")],
            host: None,
        })
    }

    /// A link inside the organisation's own intranet.
    pub fn internal_link(&mut self, visible: &str, sub: &str, path: &str) -> Piece {
        let href = format!("https://{sub}.{}/{path}", self.org.domain);
        self.aligned(visible, href)
    }

    fn sender_is_lookalike(&self) -> bool {
        (self.has("lookalike_domain") || self.has("punycode_domain"))
            && !self.has("freemail_corporate")
    }

    fn lookalike_marks(&self, domain: &str) -> Vec<Mark> {
        let mut marks = vec![phish("lookalike_domain")];
        if self.has("punycode_domain") {
            marks.push(phish("punycode_domain"));
        }
        if self.has("suspicious_tld")
            && slots::SUSPICIOUS_TLDS
                .iter()
                .any(|t| domain.ends_with(&format!(".{t}")))
        {
            marks.push(phish("suspicious_tld"));
        }
        marks
    }

    /// `Hi Dana,` or, when drawn, a generic greeting.
    pub fn greeting(&mut self) -> Piece {
        if self.has("generic_greeting") || self.soft(soft::GREETING) {
            let g = self.one(super::phrases::GENERIC_GREETING);
            return Piece::Marked(g, vec![phish("generic_greeting")]);
        }
        let first = self.recipient.first.clone();
        let hello = self.one(&["Hi", "Hello", "Dear", "Good morning"]);
        Piece::Text(format!("{hello} {first},"))
    }

    /// A marked clause from `pool` when `cat` is drawn (hard) or `soft_name`
    /// is carried (soft); `None` otherwise.
    pub fn clause(
        &mut self,
        cat: &'static str,
        soft_name: Option<&str>,
        pool: &[&str],
    ) -> Option<Piece> {
        let on = self.has(cat) || soft_name.is_some_and(|s| self.soft(s));
        on.then(|| Piece::Marked(self.one(pool), vec![phish(cat)]))
    }

    /// Attaches a file; a risky one is marked in the Attachments line.
    pub fn attach(&mut self, d: &mut Draft, name: &str, mime: &str, risky: bool) {
        let size = self.rng.int(900, 48_000);
        d.attachments.push(Attachment {
            name: name.to_string(),
            mime_type: mime.to_string(),
            size,
        });
        if risky {
            d.mark_header(HeaderLine::Attachments, name, phish("risky_attachment"));
        }
    }
}

impl Ctx {
    /// Chooses the body format: link tricks need HTML; other emails with
    /// links are HTML more often than not, like real mail.
    pub fn choose_html(&mut self, d: &mut Draft, has_link: bool) {
        d.html = self.has("link_text_mismatch") || (has_link && self.chance(60));
    }
}

/// Text piece.
pub fn t(s: impl Into<String>) -> Piece {
    Piece::Text(s.into())
}
