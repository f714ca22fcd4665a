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
//! What is recorded or printed (metadata, cache rows, messages) is the
//! [`EndpointUrl::display`] form: the query values whose names look
//! secret ([`is_secret_param`]) replaced by `REDACTED`.

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

    /// The form that may be recorded: secret-looking query values redacted.
    pub fn display(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{}", self.base, redact_query(q)),
            None => self.base.clone(),
        }
    }

    /// The query values [`EndpointUrl::display`] hides (for scrubbing
    /// server messages that might echo them).
    pub fn secrets(&self) -> Vec<String> {
        self.query
            .as_deref()
            .map(|q| {
                q.split('&')
                    .filter_map(|pair| pair.split_once('='))
                    .filter(|(k, v)| is_secret_param(k) && !v.is_empty())
                    .map(|(_, v)| v.to_string())
                    .collect()
            })
            .unwrap_or_default()
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

fn redact_query(q: &str) -> String {
    q.split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if is_secret_param(k) => format!("{k}={REDACTED}"),
            _ => pair.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Redacts one URL: userinfo becomes `REDACTED@`, secret-looking query
/// values `REDACTED`. Text that is not an http(s) URL is returned as is.
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
    let tail = match tail.split_once('?') {
        Some((path, q)) => match q.split_once('#') {
            Some((q, frag)) => format!("{path}?{}#{frag}", redact_query(q)),
            None => format!("{path}?{}", redact_query(q)),
        },
        None => tail.to_string(),
    };
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
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>'))
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
            "--base-url=http://REDACTED@h:1/v1?token=REDACTED&x=1"
        );
        assert_eq!(
            redact_urls_in("see HTTPS://a:b@h/ and http://ok/v1 done"),
            "see HTTPS://REDACTED@h/ and http://ok/v1 done"
        );
        assert_eq!(redact_urls_in("gpt-4o-mini"), "gpt-4o-mini");
    }
}
