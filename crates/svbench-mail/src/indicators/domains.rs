//! Indicators of domains and URLs: where each URL or address in the
//! rendering points (`ip_url`, `url_shortener`, `lookalike_domain`,
//! `punycode_domain`, `suspicious_tld`) and whether links say where they go
//! (`link_text_mismatch`, `aligned_links`).

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::ops::Range;

use super::doc::Doc;
use super::fold::strip_invisible;
use super::rewrite::Unwrapped;
use super::sender::{Mailbox, Sender};
use super::spans::Collector;
use super::{lookalike, IndicatorSet};
use crate::links::registrable_domain;
use crate::render::Rendered;

/// URLs and addresses examined per email; the rest are ignored (bounded work).
const MAX_OCCURRENCES: usize = 256;

/// A URL or an address domain in the rendered text.
struct Occurrence {
    /// The URL (for an address: the domain).
    whole: Range<usize>,
    /// Its host as written.
    host: Range<usize>,
    form: Form,
}

/// How a host is written, which says how sure it is to be a host at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// The domain of a From or Reply-To address.
    Address,
    /// A URL with a scheme (`https://…`), or a link target.
    Scheme,
    /// `www.…` without a scheme.
    Www,
    /// A host followed by a path (`bank.test/login`).
    Path,
    /// A link's visible text (`bank.test [link: …]`).
    LinkText,
    /// A bare dotted word in running text: `invoice.zip`, `v2.10.3.1`, a
    /// domain named in passing. Never an IP URL, a suspicious TLD or a
    /// punycode host; a lookalike or shortener only when it does not end
    /// like a file name.
    Bare,
}

impl Form {
    /// Written so a reader's client would open it.
    fn is_url(self) -> bool {
        !matches!(self, Form::Address | Form::Bare)
    }

    /// In a host position: everything but a bare dotted word.
    fn is_host(self) -> bool {
        self != Form::Bare
    }
}

/// Runs the domain and URL checks; returns whether any link leaves the
/// sender's organisation (for `internal_sender`).
pub(super) fn check(
    doc: &Doc<'_>,
    rendered: &Rendered,
    sender: &Sender,
    set: &IndicatorSet,
    out: &mut Collector<'_>,
) -> bool {
    let mut verdicts: HashMap<String, Verdict> = HashMap::new();
    let known = known_domains(doc, sender, set);
    for occ in occurrences(doc, rendered) {
        let written = doc.slice(&occ.host);
        let host = normalise_host(written);
        if occ.form == Form::Bare && looks_like_a_file(&host, set) {
            continue;
        }
        let verdict = verdicts
            .entry(host.clone())
            .or_insert_with(|| Verdict::of(&host, sender, &known, set));
        // Only a URL is an IP URL: dotted numbers in text are versions,
        // relays in `Received` lines, SPF text, figures.
        if matches!(occ.form, Form::Scheme | Form::Www) {
            if let Some(ip) = &verdict.ip {
                let detail = || format!("the URL's host is an IP address ({ip})");
                out.push_first("ip_url", [occ.whole.clone(), occ.host.clone()], detail);
            }
        }
        if occ.form.is_url() {
            if let Some(reason) = &verdict.shortener {
                out.push_first(
                    "url_shortener",
                    [occ.whole.clone(), occ.host.clone()],
                    || reason.clone(),
                );
            }
        }
        let domain_span = occ.host.clone();
        if let Some(reason) = &verdict.lookalike {
            out.push("lookalike_domain", domain_span.clone(), || reason.clone());
        }
        if !occ.form.is_host() {
            continue;
        }
        if verdict.punycode {
            out.push("punycode_domain", domain_span.clone(), || {
                format!("{host} uses an internationalised (punycode) label")
            });
        }
        if let Some(tld) = &verdict.tld {
            out.push("suspicious_tld", domain_span, || {
                format!("{host} is under .{tld}")
            });
        }
    }
    // Links that stay on the sender's domain are no comfort when that
    // domain is itself suspect.
    let from_suspect = sender
        .from
        .address
        .as_deref()
        .and_then(|a| a.rsplit_once('@'))
        .and_then(|(_, d)| verdicts.get(&normalise_host(d)))
        .is_some_and(|v| v.lookalike.is_some() || v.tld.is_some() || v.punycode);
    links(doc, rendered, sender, set, !from_suspect, out)
}

/// Domains the reader already deals with, which a lookalike imitates: the
/// recipient organisation's (not a free-mail provider's: that is no
/// organisation), and the one the sender's own display name
/// wrote from earlier in a quoted thread (`Sophie Renard <s@belcour.example>`
/// quoted, under a reply from `be1cour-fournitures.com`).
fn known_domains(
    doc: &Doc<'_>,
    sender: &Sender,
    set: &IndicatorSet,
) -> Vec<(String, &'static str)> {
    const MAX_KNOWN: usize = 8;
    let mut known: Vec<(String, &'static str)> = Vec::new();
    if let Some(org) = sender
        .recipient_org
        .as_ref()
        .filter(|o| !set.freemail.contains(*o))
    {
        known.push((org.clone(), "the recipient's"));
    }
    let Some(name) = sender
        .from
        .name
        .as_deref()
        .filter(|n| n.chars().count() >= 5)
    else {
        return known;
    };
    let needle = format!("{name} <");
    let body = doc.slice(&doc.body);
    for (i, _) in body.match_indices(&needle).take(MAX_KNOWN) {
        let rest = &body[i + needle.len()..];
        let Some(address) = rest
            .split_once('>')
            .map(|(a, _)| a)
            .filter(|a| a.len() < 256)
        else {
            continue;
        };
        let Some(registrable) = address
            .rsplit_once('@')
            .and_then(|(_, d)| registrable_domain(&d.to_lowercase()))
        else {
            continue;
        };
        if sender.from.registrable.as_deref() != Some(registrable.as_str())
            && !known.iter().any(|(k, _)| *k == registrable)
        {
            known.push((registrable, "the thread's earlier sender's"));
        }
    }
    known
}

/// A bare word ending like a file name (`invoice.zip`, `notes.md`), or
/// holding no letter at all (`1.2.3.4`, a version): not a domain.
fn looks_like_a_file(host: &str, set: &IndicatorSet) -> bool {
    let last = host.rsplit('.').next().unwrap_or(host);
    !host.chars().any(char::is_alphabetic)
        || !host.is_ascii()
        || set.file_extensions.contains(last)
        || set.risky_extensions.contains(last)
        || set.archive_extensions.contains(last)
        || set.decoy_extensions.contains(last)
}

/// What one host is.
struct Verdict {
    ip: Option<String>,
    shortener: Option<String>,
    lookalike: Option<String>,
    punycode: bool,
    tld: Option<String>,
}

impl Verdict {
    fn of(host: &str, sender: &Sender, known: &[(String, &str)], set: &IndicatorSet) -> Self {
        let ip = ip_host(host);
        let registrable = if ip.is_some() {
            None
        } else {
            registrable_domain(host)
        };
        let own = registrable
            .as_deref()
            .and_then(|r| set.brand_of_domain(r))
            .is_some();
        let shortener = registrable.as_deref().and_then(|r| {
            let listed = set.shorteners.contains(host) || set.shorteners.contains(r);
            let brands_own = sender
                .claimed_brand
                .is_some_and(|b| set.brands[b].shorteners.iter().any(|s| s == r || s == host));
            (listed && !brands_own).then(|| format!("{host} is a link shortener"))
        });
        let lookalike = match (&registrable, own) {
            (Some(r), false) => lookalike::check(host, r, set).or_else(|| {
                known
                    .iter()
                    .find_map(|(k, whose)| lookalike::near_known(r, k, whose, &set.lookalike))
            }),
            _ => None,
        };
        let punycode = ip.is_none()
            && host
                .split('.')
                .any(|l| l.starts_with("xn--") || !l.is_ascii());
        let tld = registrable
            .as_deref()
            .and_then(|r| r.rsplit('.').next())
            .filter(|t| set.suspicious_tlds.contains(*t))
            .map(str::to_string);
        Self {
            ip,
            shortener,
            lookalike,
            punycode,
            tld,
        }
    }
}

/// A host written as an IP address: IPv6 in brackets, dotted IPv4, or an
/// IPv4 address as one decimal or hex number (`3232235777`, `0xC0A80001`).
fn ip_host(host: &str) -> Option<String> {
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return inner
            .parse::<std::net::Ipv6Addr>()
            .ok()
            .map(|ip| ip.to_string());
    }
    if let Ok(ip) = host.parse::<Ipv4Addr>() {
        return Some(ip.to_string());
    }
    let number = match host.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None if host.bytes().all(|b| b.is_ascii_digit()) => host.parse::<u32>().ok(),
        None => None,
    }?;
    Some(Ipv4Addr::from(number).to_string())
}

/// Lower case; IDNA to Unicode so `xn--` and Unicode spellings agree.
fn normalise_host(written: &str) -> String {
    let lower = written.trim_end_matches('.').to_lowercase();
    if lower.starts_with('[') || lower.is_ascii() && !lower.contains("xn--") {
        return lower;
    }
    let (unicode, result) = idna::domain_to_unicode(&lower);
    if result.is_ok() {
        unicode
    } else {
        lower
    }
}

/// URLs of the body (plain, and link targets as rendered) and the domains of
/// the From and Reply-To addresses.
fn occurrences(doc: &Doc<'_>, rendered: &Rendered) -> Vec<Occurrence> {
    let mut found: Vec<Occurrence> = Vec::new();
    for name in ["From", "Reply-To"] {
        let Some(line) = doc.header(name) else {
            continue;
        };
        // The address's domain only: an `@` in a display name is no host.
        let mailbox = Mailbox::parse(Some(doc.slice(&line)));
        let Some(address) = mailbox
            .address
            .as_deref()
            .and_then(|a| doc.find_in(&line, a))
        else {
            continue;
        };
        let Some(at) = doc.slice(&address).rfind('@') else {
            continue;
        };
        let host = trim_dots(doc.text, address.start + at + 1..address.end);
        if !host.is_empty() {
            found.push(Occurrence {
                whole: host.clone(),
                host,
                form: Form::Address,
            });
        }
    }
    let body = doc.slice(&doc.body);
    let mut finder = linkify::LinkFinder::new();
    finder
        .kinds(&[linkify::LinkKind::Url])
        .url_must_have_scheme(false);
    for link in finder.links(body).take(MAX_OCCURRENCES) {
        let whole = doc.body.start + link.start()..doc.body.start + link.end();
        if let Some(host) = host_range(doc.text, &whole) {
            let form = form_of(doc, &whole, &host);
            found.push(Occurrence { whole, host, form });
        }
    }
    // `scheme://` URLs linkify does not take (numeric hosts, IPv6 literals).
    for (i, _) in body.match_indices("://").take(MAX_OCCURRENCES) {
        let at = doc.body.start + i;
        if found
            .iter()
            .any(|o| o.form == Form::Scheme && o.whole.contains(&at))
        {
            continue;
        }
        if let Some(whole) = scheme_url(doc.text, &doc.body, at) {
            if let Some(host) = host_range(doc.text, &whole) {
                found.push(Occurrence {
                    whole,
                    host,
                    form: Form::Scheme,
                });
            }
        }
    }
    // Link targets linkify does not take as URLs (IP literals, odd schemes).
    for link in rendered.links.iter().take(MAX_OCCURRENCES) {
        for whole in target_spans(doc, &link.href) {
            if found.iter().any(|o| o.whole == whole) {
                continue;
            }
            if let Some(host) = host_range(doc.text, &whole) {
                // An anchor's target is a link however written; a plain-text
                // "link" is one only if it reads like a URL.
                let anchored = doc
                    .text
                    .get(..whole.start)
                    .is_some_and(|t| t.ends_with("[link: "));
                let form = if anchored {
                    Form::Scheme
                } else {
                    form_of(doc, &whole, &host)
                };
                found.push(Occurrence { whole, host, form });
            }
        }
    }
    found.truncate(MAX_OCCURRENCES);
    found
}

/// How the URL at `whole` (host at `host`) is written.
fn form_of(doc: &Doc<'_>, whole: &Range<usize>, host: &Range<usize>) -> Form {
    let url = doc.slice(whole);
    if url.contains("://") {
        Form::Scheme
    } else if doc
        .slice(host)
        .get(..4)
        .is_some_and(|w| w.eq_ignore_ascii_case("www."))
    {
        Form::Www
    } else if doc
        .text
        .get(host.end..whole.end)
        .is_some_and(|rest| rest.starts_with('/'))
    {
        Form::Path
    } else if doc
        .text
        .get(whole.end..doc.body.end)
        .is_some_and(|rest| rest.starts_with(" [link: "))
    {
        Form::LinkText
    } else {
        Form::Bare
    }
}

/// The URL around the `://` at byte `at`: an ASCII scheme before it, then
/// everything up to whitespace or a delimiter, trailing punctuation dropped.
fn scheme_url(text: &str, region: &Range<usize>, at: usize) -> Option<Range<usize>> {
    let before = &text[region.start..at];
    let scheme_len = before
        .bytes()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        .count();
    if scheme_len == 0 {
        return None;
    }
    let rest = &text[at + 3..region.end];
    let len = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '\'' | '`'))
        .unwrap_or(rest.len());
    let url = rest[..len].trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']']);
    // Keep the closing bracket of an IPv6 host with nothing after it.
    let url = if url.starts_with('[') && !url.contains(']') {
        rest.get(..url.len() + 1)
            .filter(|u| u.ends_with(']'))
            .unwrap_or(url)
    } else {
        url
    };
    (!url.is_empty()).then(|| at - scheme_len..at + 3 + url.len())
}

fn trim_dots(text: &str, range: Range<usize>) -> Range<usize> {
    let s = &text[range.clone()];
    let trimmed = s.trim_end_matches('.');
    range.start..range.start + trimmed.len()
}

/// The host part of the URL at `whole`: after the scheme and any user
/// info, before the port, path, query or fragment.
fn host_range(text: &str, whole: &Range<usize>) -> Option<Range<usize>> {
    let url = text.get(whole.clone())?;
    let after_scheme = match url.find("://") {
        Some(i) => i + 3,
        None => 0,
    };
    // A host ends at a path, query or fragment, or at a character no host
    // holds (`。` or `，` closing a CJK sentence).
    let authority_len = url[after_scheme..]
        .find(|c: char| {
            matches!(c, '/' | '?' | '#' | '\\')
                || !(c.is_alphanumeric()
                    || matches!(c, '-' | '.' | '_' | '[' | ']' | ':' | '@' | '%' | '~'))
        })
        .unwrap_or(url.len() - after_scheme);
    let authority = &url[after_scheme..after_scheme + authority_len];
    let host_start = authority.rfind('@').map_or(0, |i| i + 1);
    let host = &authority[host_start..];
    let host_len = if host.starts_with('[') {
        host.find(']').map_or(host.len(), |i| i + 1)
    } else {
        host.find(':').unwrap_or(host.len())
    };
    let start = whole.start + after_scheme + host_start;
    let range = trim_dots(text, start..start + host_len);
    (!range.is_empty()).then_some(range)
}

/// Where a link target appears rendered: inside `[link: …]`, else as
/// written in the body.
fn target_spans(doc: &Doc<'_>, href: &str) -> Vec<Range<usize>> {
    let body = doc.slice(&doc.body);
    let marked = format!("[link: {href}]");
    let mut spans: Vec<Range<usize>> = body
        .match_indices(&marked)
        .map(|(i, _)| {
            let start = doc.body.start + i + "[link: ".len();
            start..start + href.len()
        })
        .collect();
    if spans.is_empty() && !href.is_empty() {
        spans.extend(body.match_indices(href).map(|(i, _)| {
            let start = doc.body.start + i;
            start..start + href.len()
        }));
    }
    spans
}

/// `link_text_mismatch` and `aligned_links` (not when the sender's own
/// domain is suspect: `sender_trusted` false); returns whether any link
/// leaves the sender's organisation.
fn links(
    doc: &Doc<'_>,
    rendered: &Rendered,
    sender: &Sender,
    set: &IndicatorSet,
    sender_trusted: bool,
    out: &mut Collector<'_>,
) -> bool {
    let mut external = false;
    let mut aligned = Vec::new();
    for link in rendered.links.iter().take(MAX_OCCURRENCES) {
        // Through a security gateway, the link's real target is the URL it
        // wraps; when that cannot be read, nothing is said about the link.
        let unwrapped = match link.href_host.as_deref() {
            Some(host) => set.gateways.unwrap(host, &link.href),
            None => Unwrapped::Direct,
        };
        let original = match &unwrapped {
            Unwrapped::Direct => None,
            Unwrapped::Original(url) => Some(crate::Link::new(&link.visible_text, url)),
            Unwrapped::Opaque => {
                external = true;
                continue;
            }
        };
        let effective = original.as_ref().unwrap_or(link);
        let target = effective.href_registrable.as_deref();
        let owned = target.is_some_and(|t| sender.owns(t, set));
        external |= !owned;
        if let (true, Some(t)) = (owned, target) {
            aligned.push((link, t.to_string()));
        }
        if let Some(claim) = mismatch(effective, sender, set) {
            let marked = format!(" [link: {}]", link.href);
            let body = doc.slice(&doc.body);
            let visible = link.visible_text.as_str();
            for (i, _) in body.match_indices(&marked) {
                // The visible text ends right before the marker.
                let end = doc.body.start + i + marked.len();
                let start = if !visible.is_empty() && body[..i].ends_with(visible) {
                    doc.body.start + i - visible.len()
                } else {
                    doc.body.start + i + 1
                };
                let href_only = doc.body.start + i + 1..end;
                out.push_first("link_text_mismatch", [start..end, href_only], || {
                    claim.clone()
                });
            }
        }
    }
    // Benign only when every link is aligned.
    if sender_trusted && !external && !aligned.is_empty() {
        for (link, target) in aligned {
            for span in target_spans(doc, &link.href) {
                out.push("aligned_links", span, || {
                    format!("links to {target}, the sender's own domain")
                });
            }
        }
    }
    external
}

/// Why a link's visible text disagrees with its target, if it does. A
/// sender that authenticates as the domain the text names (or as the named
/// brand's) chose where its links go: a mail service's click tracking is no
/// mismatch.
fn mismatch(link: &crate::Link, sender: &Sender, set: &IndicatorSet) -> Option<String> {
    let vouched =
        |domain: &str| sender.authenticated && sender.from.registrable.as_deref() == Some(domain);
    let target = link
        .href_registrable
        .clone()
        .or_else(|| link.href_host.clone())?;
    if let Some(text_host) = &link.text_host {
        let text_host = strip_invisible(text_host);
        let shown = registrable_domain(&text_host).unwrap_or_else(|| text_host.to_string());
        if shown != target && !vouched(&shown) {
            return Some(format!("the link shows {shown} but goes to {target}"));
        }
        return None;
    }
    let b = set.brand_named_in(&link.visible_text)?;
    let brand = &set.brands[b];
    let vouched_brand = brand.domains.iter().any(|d| vouched(d));
    (!brand.domains.contains(&target) && !vouched_brand).then(|| {
        format!(
            "the link names {} but goes to {target}, not one of its domains",
            brand.name
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_hosts_in_every_spelling() {
        assert_eq!(ip_host("203.0.113.7").as_deref(), Some("203.0.113.7"));
        assert_eq!(ip_host("3232235777").as_deref(), Some("192.168.1.1"));
        assert_eq!(ip_host("0xc0a80101").as_deref(), Some("192.168.1.1"));
        assert_eq!(ip_host("[2001:db8::1]").as_deref(), Some("2001:db8::1"));
        assert_eq!(ip_host("bank.test"), None);
        assert_eq!(ip_host("99999999999"), None);
    }

    #[test]
    fn host_ranges_skip_scheme_user_info_and_port() {
        let t = "x http://paypal.com@evil.top:8080/login y";
        let whole = 2..t.len() - 2;
        let h = host_range(t, &whole).unwrap();
        assert_eq!(&t[h], "evil.top");
        let t = "http://[2001:db8::1]/a";
        let h = host_range(t, &(0..t.len())).unwrap();
        assert_eq!(&t[h], "[2001:db8::1]");
    }
}
