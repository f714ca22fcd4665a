//! Links rewritten by a security gateway (Microsoft Safe Links, Proofpoint
//! URL Defense, Mimecast, Barracuda, Cisco): the visible text names the
//! original site and the href goes through the gateway, which is no
//! mismatch. The original URL is read back from the rewritten one. Which
//! hosts are gateways, and how each writes the original, is data
//! (`[[link_gateways]]` of `indicators.toml`).

use url::Url;

use super::config::GatewayEntry;

/// The gateways, compiled.
#[derive(Debug)]
pub(super) struct Gateways(Vec<Gateway>);

#[derive(Debug)]
struct Gateway {
    /// The host, or the domain the host is under.
    suffix: String,
    /// The host must also start with this (`protect` for Mimecast).
    prefix: String,
    kind: Kind,
}

/// A `read` value no gateway reader knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("link_gateways: `{0}` is not query:NAME, proofpoint, domain-query or last-segment")]
pub(super) struct UnknownReader(String);

impl Gateways {
    pub(super) fn new(entries: &[GatewayEntry]) -> Result<Self, UnknownReader> {
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            let kind = match e.read.as_str() {
                "proofpoint" => Kind::Proofpoint,
                "domain-query" => Kind::MimecastDomain,
                "last-segment" => Kind::LastSegment,
                other => match other.strip_prefix("query:") {
                    Some(key) if !key.is_empty() => Kind::Query(key.to_string()),
                    _ => return Err(UnknownReader(other.to_string())),
                },
            };
            out.push(Gateway {
                suffix: e.suffix.trim().trim_start_matches('.').to_lowercase(),
                prefix: e.host_prefix.trim().to_lowercase(),
                kind,
            });
        }
        Ok(Self(out))
    }

    /// Unwrap `href`, whose host (lower case) is `host`.
    pub(super) fn unwrap(&self, host: &str, href: &str) -> Unwrapped {
        let gateway = self.0.iter().find(|g| {
            let under = host == g.suffix
                || host
                    .strip_suffix(g.suffix.as_str())
                    .is_some_and(|rest| rest.ends_with('.'));
            under && host.starts_with(g.prefix.as_str())
        });
        match gateway {
            Some(g) => read(&g.kind, href),
            None => Unwrapped::Direct,
        }
    }
}

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

/// The original URL of a gateway's `href`.
fn read(kind: &Kind, href: &str) -> Unwrapped {
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

#[derive(Debug)]
enum Kind {
    Query(String),
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
        let g = &crate::IndicatorSet::builtin().gateways;
        for (host, href, want) in cases {
            assert_eq!(
                g.unwrap(host, href),
                Unwrapped::Original(want.into()),
                "{href}"
            );
        }
        assert_eq!(
            g.unwrap(
                "nam02.safelinks.protection.outlook.com",
                "https://nam02.safelinks.protection.outlook.com/?data=05"
            ),
            Unwrapped::Opaque
        );
        assert_eq!(
            g.unwrap(
                "bank.example",
                "https://bank.example/?url=https://x.example"
            ),
            Unwrapped::Direct
        );
        // Only under the gateway's domain, not a look-alike of it.
        assert_eq!(
            g.unwrap(
                "safelinks.protection.outlook.com.evil.example",
                "https://safelinks.protection.outlook.com.evil.example/?url=https%3A%2F%2Fx.example"
            ),
            Unwrapped::Direct
        );
        assert_eq!(
            g.unwrap("mimecast.com", "https://mimecast.com/s/x?domain=x.example"),
            Unwrapped::Direct
        );
        let bad = [GatewayEntry {
            suffix: "x.example".into(),
            host_prefix: String::new(),
            read: "query:".into(),
        }];
        assert!(Gateways::new(&bad).is_err());
    }
}
