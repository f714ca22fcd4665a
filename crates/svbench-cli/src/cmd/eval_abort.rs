//! What `eval` says when a run aborts: one `error:` line with the cause, the
//! first error and how many samples failed, one `hint:` line with what to do,
//! and the same as an `abort` object in `--json` output.

use std::path::Path;

use serde_json::{json, Value};
use svbench_runner::{AbortCause, RunAbort};

/// Where the run's requests went, for the hint.
#[derive(Debug, Default)]
pub struct EndpointFacts<'a> {
    /// Base URL of the endpoint (none for builtins).
    pub base_url: Option<&'a str>,
    /// Variable the API key is read from, if any.
    pub api_key_env: Option<&'a str>,
}

/// The `error:` line, without the prefix.
pub fn message(abort: &RunAbort) -> String {
    let what = match abort.cause {
        AbortCause::FatalError => "an endpoint error that retrying cannot fix".to_string(),
        AbortCause::ConsecutiveErrors(n) => format!("{n} errored samples in a row"),
        AbortCause::UnreadableExample(i) => format!("example {i} could not be read"),
        _ => "an internal error".to_string(),
    };
    let which = match abort.cause {
        AbortCause::ConsecutiveErrors(_) => "first error",
        _ => "error",
    };
    let status = abort
        .http_status
        .map(|s| format!(" (HTTP {s})"))
        .unwrap_or_default();
    format!(
        "run aborted after {what}; {} of {} samples failed; {which}: {}{status}: {}",
        abort.failed, abort.total, abort.kind, abort.message
    )
}

/// The `hint:` line: what to check for this kind of error, then how to
/// continue the run.
pub fn hint(abort: &RunAbort, endpoint: &EndpointFacts<'_>, run_dir: &Path) -> String {
    let url = endpoint.base_url.unwrap_or("the endpoint");
    let check = match (abort.kind.as_str(), abort.http_status) {
        ("connection", _) => format!(
            "nothing answered at {url}: check the endpoint URL (--base-url, or the model's \
             profile in svbench.toml) and that the server is up"
        ),
        (_, Some(401 | 403)) => match endpoint.api_key_env {
            Some(var) => format!("{url} refused the API key: check that ${var} holds a valid key"),
            None => format!(
                "{url} wants an API key: name the variable holding it with --api-key-env \
                 (or api_key_env in the profile)"
            ),
        },
        (_, Some(404)) => format!(
            "{url} has no such model or route: check the model id and that the base URL is the \
             one chat/completions hangs off (usually ending in /v1)"
        ),
        ("rate_limited", _) => "the endpoint is rate-limiting: lower --concurrency, or set \
             requests_per_minute / tokens_per_minute in the endpoint's profile in svbench.toml"
            .to_string(),
        ("timeout", _) if abort.message.contains("--sample-timeout") => {
            "samples took longer than --sample-timeout: raise it (seconds per sample), or lower \
             --max-turns or --max-tokens"
                .to_string()
        }
        ("timeout", _) => format!(
            "{url} answered too slowly: raise --request-timeout (seconds per call), or lower \
             --concurrency or --max-tokens"
        ),
        ("http_status", Some(s)) if s >= 500 => {
            format!("the server at {url} failed (HTTP {s}): see its logs")
        }
        ("malformed_response", _) => format!(
            "the replies could not be used: check that {url} serves OpenAI-compatible chat \
             completions, and raise --max-tokens if replies are cut off"
        ),
        ("context_length", _) => "prompts do not fit the model's context window: lower \
             --max-tokens or use a model with a longer context"
            .to_string(),
        ("dataset", _) => "the dataset could not be read mid-run: fix or restore it".to_string(),
        _ => "each sample's error is in results.jsonl; --max-consecutive-errors 0 keeps a run \
              going past errors"
            .to_string(),
    };
    format!(
        "{check}; once fixed, `--resume {} --retry-errors` continues this run",
        run_dir.display()
    )
}

/// The `abort` object of `--json` output.
pub fn to_json(abort: &RunAbort, hint: &str) -> Value {
    json!({
        "cause": abort.cause.name(),
        "reason": abort.reason,
        "kind": abort.kind,
        "message": abort.message,
        "http_status": abort.http_status,
        "failed": abort.failed,
        "total": abort.total,
        "hint": hint,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn abort(kind: &str, message: &str, http_status: Option<u16>) -> RunAbort {
        RunAbort {
            cause: AbortCause::ConsecutiveErrors(3),
            reason: "3 consecutive errored samples".into(),
            kind: kind.into(),
            message: message.into(),
            http_status,
            failed: 5,
            total: 80,
        }
    }

    const URL: EndpointFacts<'static> = EndpointFacts {
        base_url: Some("http://127.0.0.1:9/v1"),
        api_key_env: Some("MY_KEY"),
    };

    #[test]
    fn the_line_says_cause_counts_and_first_error() {
        let a = abort("http_status", "HTTP 500: boom", Some(500));
        assert_eq!(
            message(&a),
            "run aborted after 3 errored samples in a row; 5 of 80 samples failed; \
             first error: http_status (HTTP 500): HTTP 500: boom"
        );
    }

    #[test]
    fn each_kind_gets_its_own_advice() {
        let dir = Path::new("out/run");
        let cases = [
            (
                abort("connection", "refused", None),
                "check the endpoint URL",
            ),
            (abort("http_status", "HTTP 401", Some(401)), "$MY_KEY"),
            (abort("http_status", "HTTP 404", Some(404)), "model id"),
            (abort("http_status", "HTTP 502", Some(502)), "see its logs"),
            (
                abort("rate_limited", "HTTP 429", Some(429)),
                "--concurrency",
            ),
            (
                abort("timeout", "no complete reply", None),
                "--request-timeout",
            ),
            (
                abort("timeout", "sample exceeded --sample-timeout of 1 s", None),
                "raise it",
            ),
            (abort("malformed_response", "x", None), "OpenAI-compatible"),
            (abort("context_length", "x", Some(400)), "context window"),
            (abort("http_status", "HTTP 400", Some(400)), "results.jsonl"),
        ];
        for (a, want) in cases {
            let h = hint(&a, &URL, dir);
            assert!(h.contains(want), "{}: {h}", a.kind);
            assert!(
                h.ends_with("`--resume out/run --retry-errors` continues this run"),
                "{h}"
            );
        }
        let no_key = EndpointFacts {
            base_url: URL.base_url,
            api_key_env: None,
        };
        let h = hint(&abort("http_status", "HTTP 401", Some(401)), &no_key, dir);
        assert!(h.contains("--api-key-env"), "{h}");
    }
}
