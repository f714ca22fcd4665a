//! Endpoint base URLs: validation, request URLs and redaction.
//!
//! A base URL may carry a query string (some gateways take
//! `?api-version=…` or even `?api-key=…`); requests go to
//! `{scheme}://{host}{path}/chat/completions?{query}`, the path joined
//! before the query. Credentials in the authority (`user:password@host`)
//! are refused: the key goes in an environment variable named by
//! `--api-key-env` (or a profile's `api_key_env`), and it would share the
//! `Authorization` header with Basic auth.
//!
//! What is recorded or printed (metadata, argv, cache rows, messages) is
//! the [`EndpointUrl::display`] form: every query value replaced by
//! `REDACTED` unless its name is allow-listed ([`RECORDED_PARAMS`]), and
//! every path segment that looks like a key ([`looks_like_key`]) too.
//! Gateways take keys in all of these places (`?code=…`, `?x=sk-…`,
//! `/key/sk-…`), and a name cannot tell which values are secret.

use std::fmt;

/// Text that replaces a secret query value or userinfo.
pub const REDACTED: &str = "REDACTED";

/// Why a base URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlError {
    /// Not `http://` or `https://`.
    #[error("`{0}` must start with http:// or https://")]
    Scheme(String),
    /// No host after the scheme.
    #[error("`{0}` has no host")]
    NoHost(String),
    /// `user:password@` in the authority. The URL shown is redacted.
    #[error(
        "`{0}` carries credentials (user:password@host); they are not sent and never \
         recorded\nhint: remove them, put the key in an environment variable and pass \
         --api-key-env VAR (or set api_key_env in the profile)"
    )]
    UserInfo(String),
    /// A `#fragment`, which is never sent and would swallow the request path.
    #[error("`{0}` has a #fragment; remove it")]
    Fragment(String),
}

/// A validated base URL. `Debug` and `Display` show the redacted form;
/// the query itself is only reachable through [`EndpointUrl::request_url`].
#[derive(Clone, PartialEq, Eq)]
pub struct EndpointUrl {
    /// `scheme://host[:port][/path]`, no trailing `/`, no query.
    base: String,
    /// The raw query (without `?`), if any.
    query: Option<String>,
}

impl EndpointUrl {
    /// Validates `raw`: http(s), a host, no userinfo, no fragment. A
    /// trailing `/` on the path is dropped; an empty query (`…/v1?`) too.
    pub fn parse(raw: &str) -> Result<Self, UrlError> {
        let shown = || redact_url(raw);
        let rest = raw
            .strip_prefix("http://")
            .or_else(|| raw.strip_prefix("https://"))
            .ok_or_else(|| UrlError::Scheme(shown()))?;
        if raw.contains('#') {
            return Err(UrlError::Fragment(shown()));
        }
        let (before_query, query) = match raw.split_once('?') {
            Some((b, q)) => (b, (!q.is_empty()).then(|| q.to_string())),
            None => (raw, None),
        };
        let authority = rest.split(['/', '?']).next().unwrap_or("");
        if authority.contains('@') {
            return Err(UrlError::UserInfo(shown()));
        }
        if authority.is_empty() || authority.starts_with(':') {
            return Err(UrlError::NoHost(shown()));
        }
        Ok(Self {
            base: before_query.trim_end_matches('/').to_string(),
            query,
        })
    }

    /// The URL of `path` (e.g. `chat/completions`) under this base, with
    /// the query after the path. Holds any secret the query carries: send
    /// it, never record it.
    pub fn request_url(&self, path: &str) -> String {
        let mut url = format!("{}/{}", self.base, path.trim_start_matches('/'));
        if let Some(q) = &self.query {
            url.push('?');
            url.push_str(q);
        }
        url
    }

    /// The form that may be recorded: query values (but allow-listed
    /// ones) and key-looking path segments redacted.
    pub fn display(&self) -> String {
        redact_url(&match &self.query {
            Some(q) => format!("{}?{q}", self.base),
            None => self.base.clone(),
        })
    }

    /// The secrets [`EndpointUrl::display`] hides that server messages
    /// might echo, for scrubbing them: key-looking path segments, and query
    /// values that look like keys, are named like secrets or are at least
    /// [`SCRUBBED_MIN_CHARS`] long (a short value such as `1` would scrub
    /// every `1` of a message).
    pub fn secrets(&self) -> Vec<String> {
        let path = self
            .base
            .split_once("://")
            .map_or("", |(_, rest)| rest)
            .split('/')
            .skip(1)
            .filter(|seg| looks_like_key(seg))
            .map(str::to_string);
        let query = self
            .query
            .iter()
            .flat_map(|q| q.split('&'))
            .filter_map(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or(("", pair));
                let hidden = !is_recorded_param(k)
                    && (is_secret_param(k)
                        || looks_like_key(v)
                        || v.chars().count() >= SCRUBBED_MIN_CHARS);
                (hidden && !v.is_empty()).then(|| v.to_string())
            });
        path.chain(query).collect()
    }
}

impl fmt::Debug for EndpointUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EndpointUrl({})", self.display())
    }
}

impl fmt::Display for EndpointUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

/// Whether a query parameter name looks like it carries a secret: its
/// lower-cased name, without `-`, `_` and `.`, contains `key`, `token`,
/// `secret`, `pass`, `pwd`, `auth`, `sig`, `credential` or `session`.
pub fn is_secret_param(name: &str) -> bool {
    let norm: String = name
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | '.'))
        .flat_map(char::to_lowercase)
        .collect();
    [
        "key",
        "token",
        "secret",
        "pass",
        "pwd",
        "auth",
        "sig",
        "credential",
        "session",
    ]
    .iter()
    .any(|w| norm.contains(w))
}

/// Query parameters whose values are recorded as given: API versions,
/// which identify the endpoint and hold no secret. Every other value is
/// recorded as `REDACTED`.
pub const RECORDED_PARAMS: &[&str] = &["api-version", "api_version"];

/// Shortest query value [`EndpointUrl::secrets`] scrubs out of server
/// messages when neither its name nor its shape says it is a key.
pub const SCRUBBED_MIN_CHARS: usize = 8;

fn is_recorded_param(name: &str) -> bool {
    RECORDED_PARAMS.iter().any(|p| p.eq_ignore_ascii_case(name))
}

/// Prefixes of provider keys and tokens (OpenAI `sk-`, Stripe-style `rk-`
/// / `pk-`, Google `AIza`, GitHub `ghp_`, Slack `xox…`, Hugging Face
/// `hf_`, Groq `gsk_`, generic `key-`).
const KEY_PREFIXES: &[&str] = &[
    "sk-",
    "sk_",
    "rk-",
    "rk_",
    "pk-",
    "pk_",
    "key-",
    "AIza",
    "ghp_",
    "gho_",
    "github_pat_",
    "xox",
    "hf_",
    "gsk_",
];

/// Shortest run of letters and digits, mixing both, that
/// [`looks_like_key`] takes for a random token.
const TOKEN_RUN_CHARS: usize = 16;

/// Whether a path segment or query value looks like a key: it starts with
/// a known key prefix ([`KEY_PREFIXES`]) and has more after it, or it is a
/// token of at least 20 characters of `[A-Za-z0-9_-]` holding a run of at
/// least 16 letters and digits with both in it (random keys do; words,
/// versions, dates, UUIDs and model names such as
/// `gpt-4o-mini-2024-07-18` do not).
pub fn looks_like_key(text: &str) -> bool {
    let decoded = text
        .replace("%2D", "-")
        .replace("%2d", "-")
        .replace("%5F", "_");
    let text = decoded.as_str();
    if KEY_PREFIXES
        .iter()
        .any(|p| text.len() > p.len() + 3 && text.starts_with(p))
    {
        return true;
    }
    if text.len() < 20
        || !text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return false;
    }
    text.split(['-', '_']).any(|run| {
        run.len() >= TOKEN_RUN_CHARS
            && run.bytes().any(|b| b.is_ascii_digit())
            && run.bytes().any(|b| b.is_ascii_alphabetic())
    })
}

fn redact_query(q: &str) -> String {
    q.split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) if is_recorded_param(k) && !looks_like_key(v) => pair.to_string(),
            Some((k, _)) => format!("{k}={REDACTED}"),
            None if pair.is_empty() => String::new(),
            None => REDACTED.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn redact_path(path: &str) -> String {
    path.split('/')
        .map(|seg| if looks_like_key(seg) { REDACTED } else { seg })
        .collect::<Vec<_>>()
        .join("/")
}

/// Redacts one URL: userinfo becomes `REDACTED@`, every query value but
/// the allow-listed ones ([`RECORDED_PARAMS`]) and every key-looking path
/// segment ([`looks_like_key`]) `REDACTED`. Text that is not an http(s)
/// URL is returned as is.
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let (scheme, rest) = url.split_at(scheme_end);
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(auth_end);
    let authority = match authority.rfind('@') {
        Some(at) => format!("{REDACTED}@{}", &authority[at + 1..]),
        None => authority.to_string(),
    };
    let (path, rest) = match tail.find(['?', '#']) {
        Some(i) => tail.split_at(i),
        None => (tail, ""),
    };
    let path = redact_path(path);
    let rest = match rest.strip_prefix('?') {
        Some(q) => match q.split_once('#') {
            Some((q, frag)) => format!("?{}#{frag}", redact_query(q)),
            None => format!("?{}", redact_query(q)),
        },
        // A fragment is never sent; it is kept as written.
        None => rest.to_string(),
    };
    let tail = format!("{path}{rest}");
    format!("{scheme}{authority}{tail}")
}

/// Redacts every http(s) URL inside `text` (an argv element such as
/// `--base-url=http://u:pw@host/v1`, a message): see [`redact_url`].
pub fn redact_urls_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = find_url_start(rest) {
        out.push_str(&rest[..start]);
        let url_part = &rest[start..];
        let end = url_part
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>' | ')'))
            .unwrap_or(url_part.len());
        out.push_str(&redact_url(&url_part[..end]));
        rest = &url_part[end..];
    }
    out.push_str(rest);
    out
}

fn find_url_start(text: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    match (lower.find("http://"), lower.find("https://")) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_goes_after_the_path_and_is_redacted_in_display() {
        let u = EndpointUrl::parse("http://h:8000/v1/?api-key=S3CRET&api-version=2024").unwrap();
        assert_eq!(
            u.request_url("chat/completions"),
            "http://h:8000/v1/chat/completions?api-key=S3CRET&api-version=2024"
        );
        assert_eq!(
            u.display(),
            "http://h:8000/v1?api-key=REDACTED&api-version=2024"
        );
        assert!(!format!("{u:?}").contains("S3CRET"));
        assert_eq!(u.secrets(), vec!["S3CRET".to_string()]);
    }

    #[test]
    fn every_query_value_but_the_api_version_is_redacted() {
        let u = EndpointUrl::parse(
            "http://127.0.0.1:9/v1?code=secret&x=sk-abc123def456&api-version=2024-02-01&flag",
        )
        .unwrap();
        assert_eq!(
            u.display(),
            "http://127.0.0.1:9/v1?code=REDACTED&x=REDACTED&api-version=2024-02-01&REDACTED"
        );
        // Requests still carry them.
        assert!(u
            .request_url("chat/completions")
            .ends_with("?code=secret&x=sk-abc123def456&api-version=2024-02-01&flag"));
        // Long or key-looking values are scrubbed from server messages; a
        // short anonymous one (`flag`) would scrub too much.
        assert_eq!(u.secrets(), vec!["sk-abc123def456".to_string()]);
        // An allow-listed name does not let a key through.
        let u = EndpointUrl::parse("http://h/v1?api-version=sk-live-abcdef123456").unwrap();
        assert_eq!(u.display(), "http://h/v1?api-version=REDACTED");
    }

    #[test]
    fn key_looking_path_segments_are_redacted() {
        for (raw, shown) in [
            (
                "http://h/v1/key/sk-abc123def456",
                "http://h/v1/key/REDACTED",
            ),
            ("http://h/k/sk_live_abc123/v1", "http://h/k/REDACTED/v1"),
            ("http://h/AIzaSyA1b2c3d4e5/v1", "http://h/REDACTED/v1"),
            (
                "http://h/t/ghp_abcdef0123456789/v1",
                "http://h/t/REDACTED/v1",
            ),
            (
                "http://h/t/xoxb-1234-5678-abcd/v1",
                "http://h/t/REDACTED/v1",
            ),
            ("http://h/hf_AbCdEf123456/v1", "http://h/REDACTED/v1"),
            ("http://h/gsk_AbCdEf123456/v1", "http://h/REDACTED/v1"),
            ("http://h/rk-abc1234/v1", "http://h/REDACTED/v1"),
            ("http://h/pk-abc1234/v1", "http://h/REDACTED/v1"),
            ("http://h/key-abc1234/v1", "http://h/REDACTED/v1"),
            // A random token without a known prefix.
            (
                "http://h/gw/3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c/v1",
                "http://h/gw/REDACTED/v1",
            ),
            (
                "http://h/gw/Ab3dEf6hIj9lMn2pQr5t/v1",
                "http://h/gw/REDACTED/v1",
            ),
        ] {
            let u = EndpointUrl::parse(raw).unwrap();
            assert_eq!(u.display(), shown, "{raw}");
            assert_eq!(redact_url(raw), shown, "{raw}");
            assert_eq!(u.secrets().len(), 1, "{raw}");
        }
        // Names, versions, dates, UUIDs and model names stay readable.
        for plain in [
            "https://api.openai.com/v1",
            "https://x.openai.azure.com/openai/deployments/gpt-4o-mini-2024-07-18",
            "http://h/v1/projects/123e4567-e89b-12d3-a456-426614174000/chat",
            "http://h/api/v2/openai-compatible/skills",
            "http://h/sk-/v1",
        ] {
            assert_eq!(EndpointUrl::parse(plain).unwrap().display(), plain);
            assert!(
                EndpointUrl::parse(plain).unwrap().secrets().is_empty(),
                "{plain}"
            );
        }
    }

    #[test]
    fn plain_urls_are_unchanged() {
        let u = EndpointUrl::parse("https://api.openai.com/v1/").unwrap();
        assert_eq!(u.display(), "https://api.openai.com/v1");
        assert_eq!(
            u.request_url("chat/completions"),
            "https://api.openai.com/v1/chat/completions"
        );
    }

    #[test]
    fn userinfo_is_refused_without_echoing_it() {
        let e = EndpointUrl::parse("http://user:PW123@h/v1").unwrap_err();
        assert!(matches!(e, UrlError::UserInfo(_)));
        let msg = e.to_string();
        assert!(!msg.contains("PW123") && !msg.contains("user:PW"), "{msg}");
        assert!(msg.contains("--api-key-env"), "{msg}");
        assert!(matches!(
            EndpointUrl::parse("ftp://h").unwrap_err(),
            UrlError::Scheme(_)
        ));
        assert!(matches!(
            EndpointUrl::parse("http:///v1").unwrap_err(),
            UrlError::NoHost(_)
        ));
        assert!(matches!(
            EndpointUrl::parse("http://h/v1#x").unwrap_err(),
            UrlError::Fragment(_)
        ));
    }

    #[test]
    fn secret_names() {
        for yes in [
            "api-key",
            "api_key",
            "key",
            "token",
            "access_token",
            "X-Amz-Signature",
            "password",
            "sig",
            "auth",
        ] {
            assert!(is_secret_param(yes), "{yes}");
        }
        for no in ["api-version", "model", "deployment", "format"] {
            assert!(!is_secret_param(no), "{no}");
        }
    }

    #[test]
    fn text_redaction_covers_argv_forms() {
        assert_eq!(
            redact_urls_in("--base-url=http://u:PW@h:1/v1?token=T&x=1"),
            "--base-url=http://REDACTED@h:1/v1?token=REDACTED&x=REDACTED"
        );
        assert_eq!(
            redact_urls_in("http://h/key/sk-abc123def456?code=c0de"),
            "http://h/key/REDACTED?code=REDACTED"
        );
        assert_eq!(
            redact_urls_in("see HTTPS://a:b@h/ and http://ok/v1 done"),
            "see HTTPS://REDACTED@h/ and http://ok/v1 done"
        );
        assert_eq!(redact_urls_in("gpt-4o-mini"), "gpt-4o-mini");
    }
}
