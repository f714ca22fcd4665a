//! Links found in an email: where they point (host, registrable domain) and,
//! when their visible text is itself a URL or domain, where they claim to.

use url::Url;

/// One link: an `<a href>` of the HTML body, or a URL in the plain text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// What the reader sees (for a plain-text URL, the URL).
    pub visible_text: String,
    /// The target as written.
    pub href: String,
    /// The target's host, lower case, IDNA-decoded to Unicode.
    pub href_host: Option<String>,
    /// The registrable domain of `href_host` (public-suffix list; unknown
    /// suffixes count as one label); none for IP addresses.
    pub href_registrable: Option<String>,
    /// The host the visible text names, when it looks like a URL or domain.
    pub text_host: Option<String>,
}

impl Link {
    /// A link from its visible text and target.
    pub fn new(visible_text: &str, href: &str) -> Self {
        let href_host = host_of(href);
        let href_registrable = href_host.as_deref().and_then(registrable_domain);
        Self {
            visible_text: visible_text.to_string(),
            href: href.to_string(),
            href_host,
            href_registrable,
            text_host: text_host(visible_text),
        }
    }
}

/// The registrable domain of `host` ("login.bank.co.uk" → "bank.co.uk"); an
/// unknown suffix is one label ("a.b.test" → "b.test"); none for an IP
/// address or a bare suffix.
pub fn registrable_domain(host: &str) -> Option<String> {
    let host = host.trim_end_matches('.');
    if host.parse::<std::net::IpAddr>().is_ok() || host.starts_with('[') {
        return None;
    }
    let ascii = idna::domain_to_ascii(host).ok()?;
    let domain = psl::domain_str(&ascii)?;
    Some(idna::domain_to_unicode(domain).0)
}

/// The lower-case, Unicode host of a URL (a scheme-less `www.x` counts as http).
fn host_of(href: &str) -> Option<String> {
    let href = href.trim();
    let parsed = Url::parse(href)
        .or_else(|_| Url::parse(&format!("http://{href}")))
        .ok()?;
    let host = match parsed.host()? {
        url::Host::Domain(d) => idna::domain_to_unicode(d).0,
        url::Host::Ipv4(ip) => ip.to_string(),
        url::Host::Ipv6(ip) => ip.to_string(),
    };
    Some(host.to_lowercase())
}

/// The host named by link text that looks like a URL or a domain
/// ("https://bank.test/login", "www.bank.test", "bank.test").
fn text_host(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() || text.chars().any(char::is_whitespace) || text.contains('@') {
        return None;
    }
    let has_scheme = text.contains("://");
    let looks_like_domain = text.split(['/', '?', '#']).next().is_some_and(|h| {
        h.contains('.')
            && h.rsplit('.')
                .next()
                .is_some_and(|tld| tld.len() >= 2 && tld.chars().all(char::is_alphabetic))
    });
    if !(has_scheme || looks_like_domain || text.parse::<std::net::IpAddr>().is_ok()) {
        return None;
    }
    host_of(text)
}

/// A URL as compared with its link text: no scheme, no `www.`, no trailing
/// slash, host lower case.
pub(super) fn normalized_url(text: &str) -> String {
    let t = text.trim();
    let t = t.split_once("://").map_or(t, |(_, rest)| rest);
    let t = t.strip_prefix("www.").unwrap_or(t);
    let t = t.trim_end_matches('/');
    match t.find(['/', '?', '#']) {
        Some(i) => format!("{}{}", t[..i].to_lowercase(), &t[i..]),
        None => t.to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_registrable_domains() {
        let l = Link::new(
            "https://northwind-bank.test/login",
            "http://203.0.113.7/northwind/login",
        );
        assert_eq!(l.href_host.as_deref(), Some("203.0.113.7"));
        assert_eq!(l.href_registrable, None);
        assert_eq!(l.text_host.as_deref(), Some("northwind-bank.test"));
        let l = Link::new("Verify now", "https://login.Accounts.Example.CO.UK/x");
        assert_eq!(l.href_host.as_deref(), Some("login.accounts.example.co.uk"));
        assert_eq!(l.href_registrable.as_deref(), Some("example.co.uk"));
        assert_eq!(l.text_host, None);
        assert_eq!(
            registrable_domain("a.b.northwlnd-bank.test").as_deref(),
            Some("northwlnd-bank.test")
        );
        assert_eq!(
            registrable_domain("xn--80ak6aa92e.com").as_deref(),
            Some("аррӏе.com")
        );
    }

    #[test]
    fn link_text_equal_to_its_target_after_normalisation() {
        assert_eq!(
            normalized_url("https://www.Bank.test/"),
            normalized_url("bank.test")
        );
        assert_ne!(
            normalized_url("https://bank.test/A"),
            normalized_url("https://bank.test/a")
        );
    }
}
