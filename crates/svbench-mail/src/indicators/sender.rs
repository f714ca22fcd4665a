//! Indicators of the sender: who the From line claims to be, where it
//! really comes from, where replies go, and what authentication says.

use super::doc::Doc;
use super::fold::{has_invisible, is_invisible, marker, strip_invisible, unmark};
use super::spans::Collector;
use super::IndicatorSet;
use crate::links::registrable_domain;
use crate::parse::Email;

/// A mailbox of an address header: `Name <addr>` or `addr` (the first of a list).
#[derive(Debug, Default)]
pub(super) struct Mailbox {
    pub name: Option<String>,
    pub address: Option<String>,
    pub registrable: Option<String>,
}

impl Mailbox {
    pub(super) fn parse(value: Option<&str>) -> Self {
        let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            return Self::default();
        };
        let (name, address) = match (value.find('<'), value.find('>')) {
            (Some(open), Some(close)) if open < close => {
                let name = value[..open].trim().trim_matches('"').trim();
                (
                    (!name.is_empty()).then(|| name.to_string()),
                    Some(value[open + 1..close].trim().to_string()),
                )
            }
            _ => {
                let first = value.split(", ").next().unwrap_or(value).trim();
                if first.contains('@') {
                    (None, Some(first.to_string()))
                } else {
                    (Some(first.to_string()), None)
                }
            }
        };
        let domain = address
            .as_deref()
            .and_then(|a| a.rsplit_once('@'))
            .map(|(_, d)| d.trim_end_matches('.').to_lowercase())
            .filter(|d| !d.is_empty());
        let registrable = domain.as_deref().and_then(registrable_domain);
        Self {
            name,
            address,
            registrable,
        }
    }
}

/// The sender as the extractor sees it.
pub(super) struct Sender {
    pub from: Mailbox,
    /// The brand the email claims: named by the display name, else owning
    /// the From domain.
    pub claimed_brand: Option<usize>,
    /// The brand the display name names.
    pub named_brand: Option<usize>,
    /// The recipient organisation: the registrable domain of the first To
    /// address that is a real recipient (not the sender's own address, not
    /// `undisclosed-recipients`); none for bulk mail sent to itself.
    pub recipient_org: Option<String>,
    /// DKIM and SPF pass aligned with the From domain: whoever sent it
    /// controls that domain (which says nothing of who that is).
    pub authenticated: bool,
}

impl Sender {
    pub(super) fn new(email: &Email, set: &IndicatorSet) -> Self {
        let from = Mailbox::parse(email.headers.from.as_deref());
        let named_brand = from.name.as_deref().and_then(|n| set.brand_named_in(n));
        let claimed_brand = named_brand.or_else(|| {
            from.registrable
                .as_deref()
                .and_then(|r| set.brand_of_domain(r))
        });
        let recipient_org = real_recipient(email.headers.to.as_deref(), &from);
        let authenticated = aligned_pass(
            email.headers.authentication_results.as_deref(),
            from.registrable.as_deref(),
        );
        Self {
            authenticated,
            from,
            claimed_brand,
            named_brand,
            recipient_org,
        }
    }

    /// Whether the From domain is an official domain of the brand the email
    /// claims, or the recipient organisation's own.
    fn sends_officially(&self, set: &IndicatorSet) -> bool {
        let Some(from) = self.from.registrable.as_deref() else {
            return false;
        };
        self.recipient_org.as_deref() == Some(from)
            || self
                .claimed_brand
                .is_some_and(|b| set.brands[b].domains.iter().any(|d| d == from))
    }

    /// Whether `registrable` is the sender's own or an official domain of
    /// the brand the email claims.
    pub(super) fn owns(&self, registrable: &str, set: &IndicatorSet) -> bool {
        self.from.registrable.as_deref() == Some(registrable)
            || self
                .claimed_brand
                .is_some_and(|b| set.brands[b].domains.iter().any(|d| d == registrable))
    }
}

/// `display_name_mismatch`, `reply_to_mismatch`, `freemail_corporate`,
/// `sender_brand_match`, `auth_aligned_pass`.
pub(super) fn check(
    doc: &Doc<'_>,
    email: &Email,
    sender: &Sender,
    set: &IndicatorSet,
    out: &mut Collector<'_>,
) {
    let from_line = doc.header("From");
    let from = &sender.from;
    let address_span = from_line
        .as_ref()
        .zip(from.address.as_deref())
        .and_then(|(line, a)| doc.find_in(line, a));
    let domain_span = address_span.as_ref().and_then(|a| {
        let addr = doc.slice(a);
        addr.rfind('@').map(|at| a.start + at + 1..a.end)
    });

    // The display name claims a brand, or names a domain, that the address
    // does not come from.
    if let (Some(name), Some(registrable)) = (from.name.as_deref(), from.registrable.as_deref()) {
        let brand_mismatch = sender.named_brand.and_then(|b| {
            let brand = &set.brands[b];
            (!brand.domains.iter().any(|d| d == registrable)).then(|| brand.name.clone())
        });
        let domain_mismatch = named_domain(&strip_invisible(name)).filter(|d| d != registrable);
        if let Some(claim) = brand_mismatch.or(domain_mismatch) {
            let candidates = from_line.iter().cloned().chain(address_span.clone());
            out.push_first("display_name_mismatch", candidates, || {
                format!("display name claims {claim}, but the address is at {registrable}")
            });
        }
    }

    // Replies (or bounces) go elsewhere. On a mailing list, replies and
    // bounces going to the list, or mail From the list with replies to the
    // author, are how lists work.
    let list = list_domain(email.headers.list_id.as_deref());
    let listed = |other: &str| {
        list.as_deref()
            .is_some_and(|l| l == other || from.registrable.as_deref() == Some(l))
    };
    let reply = Mailbox::parse(email.headers.reply_to.as_deref());
    if let (Some(r), Some(f)) = (reply.registrable.as_deref(), from.registrable.as_deref()) {
        if r != f && !listed(r) {
            let span = doc
                .header("Reply-To")
                .zip(reply.address.as_deref())
                .and_then(|(line, a)| doc.find_in(&line, a));
            out.push_first("reply_to_mismatch", span, || {
                format!("Reply-To is at {r}, From at {f}")
            });
        }
    }
    let bounce = Mailbox::parse(email.headers.return_path.as_deref());
    if let (Some(r), Some(f)) = (bounce.registrable.as_deref(), from.registrable.as_deref()) {
        if r != f && !listed(r) {
            // Return-Path is not rendered: cite it only where it appears.
            let span = bounce
                .address
                .as_deref()
                .and_then(|a| doc.find_in(&(0..doc.text.len()), a));
            out.push_first("reply_to_mismatch", span, || {
                format!("Return-Path is at {r}, From at {f}")
            });
        }
    }

    // Free mail that claims a company or role.
    if let Some(registrable) = from.registrable.as_deref() {
        if set.freemail.contains(registrable) {
            let claim = from
                .name
                .as_deref()
                .and_then(|n| {
                    let n = strip_invisible(n);
                    set.brand_named_in(&n)
                        .map(|b| set.brands[b].name.clone())
                        .or_else(|| set.corporate_claim.find(&n).map(|m| m.as_str().to_string()))
                })
                .or_else(|| signature_claim(doc, set));
            if let Some(claim) = claim {
                out.push_first("freemail_corporate", address_span.clone(), || {
                    format!("sent from free mail ({registrable}) while claiming “{claim}”")
                });
            }
        }
    }

    // The sender's domain is the claimed brand's own.
    if let (Some(b), Some(registrable)) = (sender.claimed_brand, from.registrable.as_deref()) {
        let brand = &set.brands[b];
        if brand.domains.iter().any(|d| d == registrable) {
            out.push_first("sender_brand_match", domain_span.clone(), || {
                format!("{registrable} is an official domain of {}", brand.name)
            });
        }
    }

    if sender.sends_officially(set) {
        auth_aligned(doc, sender, out);
    }
    invisible_characters(doc, email, sender, out);
}

/// `internal_sender`: same organisation as the recipient, nothing external.
pub(super) fn check_internal(
    doc: &Doc<'_>,
    sender: &Sender,
    external_links: bool,
    set: &IndicatorSet,
    out: &mut Collector<'_>,
) {
    let from = &sender.from;
    let (Some(registrable), Some(org)) =
        (from.registrable.as_deref(), sender.recipient_org.as_deref())
    else {
        return;
    };
    if registrable != org || external_links || set.freemail.contains(registrable) {
        return;
    }
    let span = doc.header("From").and_then(|line| {
        let addr = doc.find_in(&line, from.address.as_deref()?)?;
        let at = doc.slice(&addr).rfind('@')?;
        Some(addr.start + at + 1..addr.end)
    });
    out.push_first("internal_sender", span, || {
        format!("sender and recipient are both at {registrable}, no external links")
    });
}

/// Whether `Authentication-Results` says DKIM and SPF pass, aligned with
/// the From domain `from` (DKIM's `header.d`, and SPF's `smtp.mailfrom` or
/// `header.from`).
fn aligned_pass(results: Option<&str>, from: Option<&str>) -> bool {
    let (Some(value), Some(from)) = (results, from) else {
        return false;
    };
    let lower = value.to_ascii_lowercase();
    let aligned_with = |key: &str| {
        lower
            .split(|c: char| c.is_whitespace() || c == ';')
            .any(|tok| {
                tok.strip_prefix(key).is_some_and(|d| {
                    let d = d
                        .rsplit('@')
                        .next()
                        .unwrap_or(d)
                        .trim_matches(|c: char| c == '"' || c == '.');
                    registrable_domain(d).as_deref() == Some(from)
                })
            })
    };
    lower.contains("dkim=pass")
        && lower.contains("spf=pass")
        && aligned_with("header.d=")
        && (aligned_with("smtp.mailfrom=") || aligned_with("header.from="))
}

/// `auth_aligned_pass`: DKIM and SPF pass for the From domain. Called only
/// when that domain is the claimed brand's or the recipient's own: anyone
/// can make their own domain pass, so alignment alone says nothing about
/// who sent the mail. The span is the `dkim=pass …` segment of the
/// rendered header.
fn auth_aligned(doc: &Doc<'_>, sender: &Sender, out: &mut Collector<'_>) {
    let Some(from) = sender.from.registrable.as_deref() else {
        return;
    };
    let Some(line) = doc
        .header("Authentication-Results")
        .filter(|_| sender.authenticated)
    else {
        return;
    };
    let rendered = doc.slice(&line);
    let rendered_lower = rendered.to_ascii_lowercase();
    let segment = |key: &str| {
        let at = rendered_lower.find(key)?;
        let end = rendered[at..].find(';').map_or(rendered.len(), |i| at + i);
        Some(super::spans::trim(rendered, at..end))
            .map(|r| line.start + r.start..line.start + r.end)
    };
    let candidates = [segment("dkim=pass"), segment("spf=pass")];
    out.push_first(
        "auth_aligned_pass",
        candidates.into_iter().flatten(),
        || format!("dkim=pass and spf=pass aligned with {from}"),
    );
}

/// A domain written in a display name ("paypal.com Support").
fn named_domain(name: &str) -> Option<String> {
    name.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.contains('.') && !w.contains('@'))
        .find_map(|w| {
            let tld = w.rsplit('.').next()?;
            (tld.len() >= 2 && tld.chars().all(char::is_alphabetic))
                .then(|| registrable_domain(&w.to_lowercase()))
                .flatten()
        })
}

/// A company or role claimed in the signature (the body's last lines).
fn signature_claim(doc: &Doc<'_>, set: &IndicatorSet) -> Option<String> {
    let body = doc.slice(&doc.body);
    let tail_start = body
        .char_indices()
        .rev()
        .filter(|(_, c)| *c == '\n')
        .nth(4)
        .map_or(0, |(i, _)| i);
    set.corporate_claim
        .find(&body[tail_start..])
        .map(|m| m.as_str().to_string())
}

/// The registrable domain of the first To address that is a real
/// recipient: not the From address itself (bulk mail Bcc'd to its
/// recipients) and not an `undisclosed-recipients` placeholder.
fn real_recipient(to: Option<&str>, from: &Mailbox) -> Option<String> {
    let from_address = from.address.as_deref().map(str::to_ascii_lowercase);
    to?.split(", ")
        .map(|one| Mailbox::parse(Some(one)))
        .filter(|m| {
            let Some(address) = m.address.as_deref() else {
                return false;
            };
            let address = address.to_ascii_lowercase();
            !address.starts_with("undisclosed-recipients")
                && !address.starts_with("undisclosed.recipients")
                && from_address.as_deref() != Some(address.as_str())
        })
        .find_map(|m| m.registrable)
}

/// The registrable domain of a `List-Id` (`Name <list.lists.example.org>`).
fn list_domain(list_id: Option<&str>) -> Option<String> {
    let value = list_id?;
    let id = match (value.rfind('<'), value.rfind('>')) {
        (Some(open), Some(close)) if open < close => &value[open + 1..close],
        _ => value,
    };
    registrable_domain(&id.trim().trim_end_matches('.').to_lowercase())
}

/// An invisible character hidden inside a word (`Pay\u{200B}Pal`, raw or
/// as a `[U+200B]` marker), or a bidi override (U+202D, U+202E) anywhere,
/// in `s`. Emoji sequences joined by U+200D, or a flag's tag characters,
/// sit between symbols, not letters, and do not count; nor do direction
/// marks around a right-to-left name.
fn hidden_in_word(s: &str) -> bool {
    if !has_invisible(s) {
        return false;
    }
    let chars: Vec<char> = unmark(s).chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        if matches!(c, '\u{202D}' | '\u{202E}') {
            return true;
        }
        if !is_invisible(c) {
            return false;
        }
        let visible = |c: &&char| !is_invisible(**c);
        let before = chars[..i].iter().rev().find(visible);
        let after = chars[i + 1..].iter().find(visible);
        before.is_some_and(|c| c.is_alphanumeric()) && after.is_some_and(|c| c.is_alphanumeric())
    })
}

/// `invisible_characters`: the From display name or the Subject hides
/// characters inside a word, which defeats a reader's (and a filter's)
/// reading of the brand. The span is the rendered header value, else the
/// word holding the character.
fn invisible_characters(doc: &Doc<'_>, email: &Email, sender: &Sender, out: &mut Collector<'_>) {
    let fields = [
        ("From", sender.from.name.as_deref(), "the display name"),
        ("Subject", email.headers.subject.as_deref(), "the subject"),
    ];
    for (header, value, what) in fields {
        if !value.is_some_and(hidden_in_word) {
            continue;
        }
        let Some(line) = doc.header(header) else {
            continue;
        };
        let rendered = doc.slice(&line);
        let word = rendered
            .char_indices()
            .find(|(i, c)| is_invisible(*c) || marker(&rendered[*i..]).is_some())
            .map(|(i, _)| {
                let start = rendered[..i]
                    .rfind(char::is_whitespace)
                    .map_or(0, |j| j + 1);
                let end = rendered[i..]
                    .find(char::is_whitespace)
                    .map_or(rendered.len(), |j| i + j);
                line.start + start..line.start + end
            });
        out.push_first(
            "invisible_characters",
            std::iter::once(line.clone()).chain(word),
            || format!("{what} hides invisible characters inside a word"),
        );
    }
}
