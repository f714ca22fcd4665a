//! Routing (harness §2.2, §11.8), request shapes (§2.3, §11.7, §11.9) and
//! key handling (§8): everything that needs no network.

use std::path::Path;

use serde_json::{json, Value};
use svbench_core::message::Message;
use svbench_runner::client::request::{build_body, derive_seed, Sampling};
use svbench_runner::client::{route, Config, Route, RouteError, RouteRule, TokenParam};

fn config(text: &str) -> Config {
    Config::from_toml_str(text, Path::new("svbench.toml")).expect("config")
}

fn builtin() -> Config {
    Config::builtin()
}

fn routed(model: &str) -> Route {
    route(model, &builtin(), None, None).expect(model)
}

const LOCAL: &str = r#"
[profiles.local]
base_url = "http://127.0.0.1:8000/v1/"
api_key_env = ""
send_seed = false
requests_per_minute = 60
max_concurrency = 4
request_timeout_s = 5
extra_body = { top_k = 20, repetition_penalty = 1.0 }

[models."local-qwen"]
profile = "local"
model = "Qwen/Qwen3-4B-Instruct-2507"
reasoning = false
extra_body = { top_k = 40 }

[models."thinker"]
profile = "local"
model = "my-reasoner"
reasoning = true

[models."qwen3-14b"]
profile = "local"
model = "qwen3:14b"
"#;

#[test]
fn openai_family_names_route_to_openai() {
    for m in [
        "o1",
        "o3",
        "o3-mini",
        "o4-mini",
        "gpt-4.1",
        "gpt-4o-mini",
        "chatgpt-4o-latest",
        "text-davinci-003",
        "davinci-002",
        "babbage-002",
    ] {
        let r = routed(m);
        assert_eq!(r.profile, "openai", "{m}");
        assert_eq!(r.provider, "openai", "{m}");
        assert_eq!(r.base_url, "https://api.openai.com/v1", "{m}");
        assert_eq!(r.model, m);
        assert_eq!(r.rule, RouteRule::OpenAiName);
        assert_eq!(r.api_key_env.as_deref(), Some("OPENAI_API_KEY"));
    }
}

#[test]
fn vendor_ids_route_to_openrouter() {
    let r = routed("qwen/qwen3-8b");
    assert_eq!(r.profile, "openrouter");
    assert_eq!(r.base_url, "https://openrouter.ai/api/v1");
    assert_eq!(r.model, "qwen/qwen3-8b");
    assert_eq!(r.api_key_env.as_deref(), Some("OPENROUTER_API_KEY"));
    assert_eq!(r.rule, RouteRule::VendorId);
    assert!(!r.reasoning);
    // openai/ ids are reasoning models under "auto" when the rest matches.
    let r = routed("openai/o3-mini");
    assert_eq!(r.profile, "openrouter");
    assert!(r.reasoning);
    assert_eq!(r.token_param, TokenParam::MaxCompletionTokens);
}

#[test]
fn builtin_aliases_route_to_openrouter_ids() {
    let r = routed("qwen3-14b");
    assert_eq!(r.rule, RouteRule::Alias);
    assert_eq!(r.model, "qwen/qwen3-14b");
    assert_eq!(r.profile, "openrouter");
    assert_eq!(
        routed("llama-3.1-8b-instruct").model,
        "meta-llama/llama-3.1-8b-instruct"
    );
}

#[test]
fn name_at_profile_and_aliases_from_the_file() {
    let c = config(LOCAL);
    let r = route("x@local", &c, None, None).expect("x@local");
    assert_eq!(r.rule, RouteRule::NameAtProfile);
    assert_eq!(r.profile, "local");
    assert_eq!(r.provider, "openai-compatible");
    assert_eq!(r.base_url, "http://127.0.0.1:8000/v1");
    assert_eq!(r.model, "x");
    assert_eq!(r.api_key_env, None);
    assert!(!r.send_seed);
    assert_eq!(r.limits.requests_per_minute, Some(60));
    assert_eq!(r.limits.max_concurrency, Some(4));
    assert_eq!(r.request_timeout, Some(std::time::Duration::from_secs(5)));
    // The last `@` splits, so ids containing `@` still work.
    let r = route("org/model@v2@local", &c, None, None).expect("at in id");
    assert_eq!(r.model, "org/model@v2");
    // Built-in profiles work with `@` too.
    let r = route("my-finetune@openai", &c, None, None).expect("@openai");
    assert_eq!(r.base_url, "https://api.openai.com/v1");
    // A file alias: profile extra_body, then the alias's over it.
    let r = route("local-qwen", &c, None, None).expect("alias");
    assert_eq!(r.model, "Qwen/Qwen3-4B-Instruct-2507");
    assert_eq!(r.extra_body["top_k"], 40);
    assert_eq!(r.extra_body["repetition_penalty"], 1.0);
    // A file alias shadows the built-in one of the same name.
    let r = route("qwen3-14b", &c, None, None).expect("shadowed");
    assert_eq!(
        (r.profile.as_str(), r.model.as_str()),
        ("local", "qwen3:14b")
    );
    // reasoning = true forces the reasoning shape whatever the id.
    let r = route("thinker", &c, None, None).expect("thinker");
    assert!(r.reasoning);
    assert_eq!(r.token_param, TokenParam::MaxCompletionTokens);
}

#[test]
fn unknown_profile_and_unroutable_names_are_errors() {
    let err = route("x@nowhere", &builtin(), None, None).expect_err("unknown profile");
    assert!(matches!(err, RouteError::UnknownProfile { .. }), "{err}");
    assert!(err.to_string().contains("nowhere"), "{err}");
    for m in ["llama3", "mystery-model", "claude-3-opus", "omni"] {
        let err = route(m, &builtin(), None, None).expect_err(m);
        assert_eq!(err, RouteError::Unroutable(m.to_string()));
        assert!(err.to_string().contains("--base-url"), "{err}");
    }
    assert_eq!(route("", &builtin(), None, None), Err(RouteError::Empty));
    assert!(matches!(
        route("builtin:heuristic", &builtin(), None, None),
        Err(RouteError::Builtin(_))
    ));
}

#[test]
fn base_url_override_sends_every_model_verbatim() {
    let c = config(LOCAL);
    for m in [
        "mystery-model",
        "local-qwen",
        "x@local",
        "qwen/qwen3-8b",
        "o3",
    ] {
        let r = route(m, &c, Some("http://127.0.0.1:9999/v1/"), Some("MY_KEY")).expect(m);
        assert_eq!(r.rule, RouteRule::BaseUrl);
        assert_eq!(r.model, m);
        assert_eq!(r.base_url, "http://127.0.0.1:9999/v1");
        assert_eq!(r.profile, "ad-hoc");
        assert_eq!(r.api_key_env.as_deref(), Some("MY_KEY"));
        assert_eq!(r.limits, Default::default());
    }
    // Without --api-key-env: no key.
    let r = route("m", &c, Some("http://h/v1"), None).expect("no key");
    assert_eq!(r.api_key_env, None);
    assert_eq!(r.api_key().expect("no key needed"), None);
    assert!(route("m", &c, Some("localhost:8000"), None).is_err());
}

#[test]
fn api_key_env_override_applies_to_any_rule() {
    let r = route("gpt-4.1", &builtin(), None, Some("OTHER_OPENAI_KEY")).expect("route");
    assert_eq!(r.api_key_env.as_deref(), Some("OTHER_OPENAI_KEY"));
    let r = route("gpt-4.1", &builtin(), None, Some("")).expect("route");
    assert_eq!(r.api_key_env, None);
}

#[test]
fn missing_key_names_the_variable() {
    let r = route(
        "gpt-4.1",
        &builtin(),
        None,
        Some("SVBENCH_TEST_SURELY_UNSET_KEY_VAR"),
    )
    .expect("route");
    let err = r.api_key().expect_err("unset");
    let msg = err.to_string();
    assert!(msg.contains("SVBENCH_TEST_SURELY_UNSET_KEY_VAR"), "{msg}");
    assert!(msg.contains("--api-key-env"), "{msg}");
}

fn body_for(model: &str, temperature: Option<f64>, top_p: Option<f64>) -> Value {
    let r = routed(model);
    let s = Sampling::new(&r, 512, temperature, top_p);
    build_body(&r.model, &s, &[Message::user("hi")], &[], None)
}

#[test]
fn reasoning_models_get_max_completion_tokens_and_no_sampling_fields() {
    for m in ["o3", "o4-mini", "gpt-5-mini", "o1", "gpt-5"] {
        let b = body_for(m, Some(0.2), Some(0.9));
        assert_eq!(b["max_completion_tokens"], 512, "{m}");
        for absent in ["max_tokens", "temperature", "top_p"] {
            assert!(b.get(absent).is_none(), "{m} sent {absent}");
        }
    }
    let b = body_for("gpt-4o-mini", Some(0.2), Some(0.9));
    assert_eq!(b["max_tokens"], 512);
    assert_eq!(b["temperature"], 0.2);
    assert_eq!(b["top_p"], 0.9);
    assert!(b.get("max_completion_tokens").is_none());
    // Unset sampling fields are not sent.
    let b = body_for("gpt-4o-mini", None, None);
    assert!(b.get("temperature").is_none() && b.get("top_p").is_none());
}

#[test]
fn sampling_params_record_what_is_sent() {
    let r = routed("o3");
    let rec = Sampling::new(&r, 100, Some(0.2), None).record();
    assert_eq!(
        serde_json::to_value(&rec).expect("json"),
        json!({"extra_body": {}, "max_completion_tokens": 100, "seed": true})
    );
    let c = config(LOCAL);
    let r = route("local-qwen", &c, None, None).expect("alias");
    let rec = Sampling::new(&r, 64, Some(0.0), Some(1.0)).record();
    assert_eq!(
        serde_json::to_value(&rec).expect("json"),
        json!({"extra_body": {"repetition_penalty": 1.0, "top_k": 40}, "max_tokens": 64,
               "seed": false, "temperature": 0.0, "top_p": 1.0})
    );
}

#[test]
fn body_shape_with_seed_tools_and_extra_body() {
    let c = config(LOCAL);
    let r = route("local-qwen", &c, None, None).expect("alias");
    let s = Sampling::new(&r, 64, Some(0.0), None);
    let tools = vec![json!({"type": "function", "function": {"name": "run", "parameters": {}}})];
    let msgs = [Message::system("sys"), Message::user("u")];
    let b = build_body(&r.model, &s, &msgs, &tools, Some(7));
    assert_eq!(
        b,
        json!({
            "model": "Qwen/Qwen3-4B-Instruct-2507",
            "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "u"}],
            "temperature": 0.0,
            "max_tokens": 64,
            "seed": 7,
            "tools": tools,
            "tool_choice": "auto",
            "top_k": 40,
            "repetition_penalty": 1.0,
        })
    );
    let b = build_body(&r.model, &s, &msgs, &[], None);
    assert!(b.get("tools").is_none() && b.get("tool_choice").is_none() && b.get("seed").is_none());
}

#[test]
fn derived_seed_is_stable_per_sample() {
    let a = derive_seed(42, "ex", 0);
    assert_eq!(a, derive_seed(42, "ex", 0));
    assert_ne!(a, derive_seed(42, "ex", 1));
    assert_ne!(a, derive_seed(7, "ex", 0));
}
