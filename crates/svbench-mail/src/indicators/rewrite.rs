//! Links rewritten by a security gateway (Microsoft Safe Links, Proofpoint
//! URL Defense, Mimecast, Barracuda, Cisco): the visible text names the
//! original site and the href goes through the gateway, which is no
//! mismatch. The original URL is read back from the rewritten one.

use url::Url;

/// What a link's target is once a gateway's wrapping is taken off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Unwrapped {
    /// Not a known rewriter's link.
    Direct,
    /// The original URL (for Mimecast, a URL built from the domain the
    /// gateway records).
    Original(String),
    /// A rewriter's link whose original cannot be read: nothing can be said.
    Opaque,
}

/// Unwrap `href`, whose host (lower case) is `host`.
pub(super) fn unwrap(host: &str, href: &str) -> Unwrapped {
    let under = |suffix: &str| host == suffix || host.ends_with(&format!(".{suffix}"));
    let kind = if under("safelinks.protection.outlook.com") {
        Kind::Query("url")
    } else if under("urldefense.proofpoint.com") || under("urldefense.com") {
        Kind::Proofpoint
    } else if under("mimecast.com") && host.starts_with("protect") {
        Kind::MimecastDomain
    } else if host == "linkprotect.cudasvc.com" {
        Kind::Query("a")
    } else if host == "secure-web.cisco.com" {
        Kind::LastSegment
    } else {
        return Unwrapped::Direct;
    };
    let Ok(url) = Url::parse(href.trim()) else {
        return Unwrapped::Opaque;
    };
    let query = |key: &str| {
        url.query_pairs()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    };
    let original = match kind {
        Kind::Query(key) => query(key),
        Kind::MimecastDomain => query("domain").map(|d| format!("https://{d}/")),
        Kind::LastSegment => url
            .path_segments()
            .and_then(|mut segments| segments.next_back())
            .map(percent_decode),
        Kind::Proofpoint => proofpoint(&url, href),
    };
    match original {
        Some(o) if o.contains("://") => Unwrapped::Original(o),
        _ => Unwrapped::Opaque,
    }
}

enum Kind {
    Query(&'static str),
    Proofpoint,
    MimecastDomain,
    LastSegment,
}

fn percent_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("u={}", s.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// URL Defense v3 (`/v3/__URL__;…`) and v2 (`/v2/url?u=https-3A__host_path`:
/// `-XX` is a hex byte, `_` a slash).
fn proofpoint(url: &Url, href: &str) -> Option<String> {
    if let Some(rest) = href.split_once("/v3/__").map(|(_, r)| r) {
        let end = rest.find("__;").unwrap_or(rest.len());
        return Some(rest[..end].to_string());
    }
    let u = url.query_pairs().find(|(k, _)| k == "u")?.1.into_owned();
    let mut bytes = Vec::with_capacity(u.len());
    let raw = u.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'-' => {
                let hex = raw.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                bytes.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'_' => {
                bytes.push(b'/');
                i += 1;
            }
            b => {
                bytes.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gateways_are_unwrapped() {
        let cases = [
            (
                "nam02.safelinks.protection.outlook.com",
                "https://nam02.safelinks.protection.outlook.com/?url=https%3A%2F%2Fwww.bank.example%2Flogin&data=05%7C01&reserved=0",
                "https://www.bank.example/login",
            ),
            (
                "urldefense.proofpoint.com",
                "https://urldefense.proofpoint.com/v2/url?u=https-3A__www.bank.example_login-3Fa-3D1&d=DwMFaQ&c=x",
                "https://www.bank.example/login?a=1",
            ),
            (
                "urldefense.com",
                "https://urldefense.com/v3/__https://www.bank.example/login__;!!AbC!xyz$",
                "https://www.bank.example/login",
            ),
            (
                "protect-eu.mimecast.com",
                "https://protect-eu.mimecast.com/s/AbCdEf?domain=bank.example",
                "https://bank.example/",
            ),
            (
                "linkprotect.cudasvc.com",
                "https://linkprotect.cudasvc.com/url?a=https%3a%2f%2fbank.example%2fx&c=E,1,abc",
                "https://bank.example/x",
            ),
            (
                "secure-web.cisco.com",
                "https://secure-web.cisco.com/1AbCdEf/https%3A%2F%2Fbank.example%2Fx",
                "https://bank.example/x",
            ),
        ];
        for (host, href, want) in cases {
            assert_eq!(
                unwrap(host, href),
                Unwrapped::Original(want.into()),
                "{href}"
            );
        }
        assert_eq!(
            unwrap(
                "nam02.safelinks.protection.outlook.com",
                "https://nam02.safelinks.protection.outlook.com/?data=05"
            ),
            Unwrapped::Opaque
        );
        assert_eq!(
            unwrap(
                "bank.example",
                "https://bank.example/?url=https://x.example"
            ),
            Unwrapped::Direct
        );
    }
}
