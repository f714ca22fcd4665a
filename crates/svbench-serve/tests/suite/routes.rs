//! Success paths of every route, and `/metrics` parsing, through the
//! router in process.

use serde_json::{json, Value};
use svbench_serve::ServeConfig;

use crate::common::{Http, TestApp, E1_VALID};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_readiness_and_catalogue() {
    let s = TestApp::default();
    let v: Value = s.get("/healthz").await.json();
    assert_eq!(v, json!({"status": "ok"}));
    assert_eq!(s.get("/readyz").await.status(), 200);

    let v: Value = s.get("/v1/envs").await.json();
    let envs = v["envs"].as_array().unwrap();
    let names: Vec<&str> = envs.iter().map(|e| e["name"].as_str().unwrap()).collect();
    // Every environment of the registry, in its order.
    let registry: Vec<&str> = svbench_api::envs::all()
        .iter()
        .map(|id| id.name())
        .collect();
    assert_eq!(names, registry);
    assert!(names.contains(&"sv-env-phishing-detection"), "{names:?}");
    for e in envs {
        for key in [
            "aliases",
            "version",
            "kind",
            "splits",
            "args_schema",
            "reward_profiles",
            "tools",
            "max_turns",
            "tool_budget",
        ] {
            assert!(e.get(key).is_some(), "{key} missing from {}", e["name"]);
        }
    }
    // By alias and by name, the same entry.
    let by_alias: Value = s.get("/v1/envs/e2").await.json();
    let by_name: Value = s.get("/v1/envs/sv-env-config-verification").await.json();
    assert_eq!(by_alias, by_name);
    assert_eq!(by_alias, envs[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envs_flag_limits_what_is_served() {
    let s = TestApp::start(ServeConfig {
        envs: vec![svbench_api::envs::EnvId::resolve("e1").unwrap()],
        ..ServeConfig::default()
    });
    let v: Value = s.get("/v1/envs").await.json();
    assert_eq!(v["envs"].as_array().unwrap().len(), 1);
    crate::common::expect_error(s.get("/v1/envs/e2").await, 404, "unknown_env");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_pages_and_single_rows() {
    let s = TestApp::default();
    let page: Value = s
        .get("/v1/envs/e1/splits/test/rows?offset=2&limit=3")
        .await
        .json();
    assert_eq!(page["env"], "sv-env-network-logs");
    assert_eq!(page["split"], "test");
    assert_eq!(page["offset"], 2);
    assert!(page["dataset_sha256"].as_str().unwrap().len() == 64);
    let rows = page["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["index"], 2);
    assert!(rows[0]["answer"].is_null(), "answers only when asked for");
    let total = page["total"].as_u64().unwrap();
    assert!(total >= 5);

    let one: Value = s
        .get("/v1/envs/e1/splits/test/rows/2?include_answer=true")
        .await
        .json();
    assert_eq!(one["example_id"], rows[0]["example_id"]);
    assert_eq!(one["prompt"], rows[0]["prompt"]);
    assert!(one["answer"].is_string());

    // The prompt is exactly what `eval` sends: the API layer's row.
    let service = svbench_api::Service::new();
    let configured = service
        .configured(
            svbench_api::envs::EnvId::resolve("e1").unwrap(),
            &Default::default(),
        )
        .unwrap();
    let split = service.split(&configured, "test").unwrap();
    let expected = svbench_api::rows::row(&configured, &split.examples[2], true);
    assert_eq!(one, serde_json::to_value(expected).unwrap());

    // Past the end: an empty page, not an error.
    let tail: Value = s
        .get(&format!("/v1/envs/e1/splits/test/rows?offset={total}"))
        .await
        .json();
    assert_eq!(tail["rows"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn score_by_id_inline_and_batch_with_advantages() {
    let s = TestApp::default();
    let rows = s.rows("e1", 4).await;
    let id = rows[0]["example_id"].as_str().unwrap();
    let r = s
        .post(
            "/v1/envs/e1/score",
            &json!({"example_id": id, "completion": E1_VALID}),
        )
        .await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json();
    for key in [
        "example_id",
        "reward",
        "rewards",
        "weights",
        "reward_profile",
        "reward_config_hash",
        "parse",
        "parsed",
        "compat",
    ] {
        assert!(v.get(key).is_some(), "{key} missing: {v}");
    }
    assert_eq!(v["example_id"], id);
    assert_eq!(v["reward_profile"], "v1");

    let inline: Value = s
        .post(
            "/v1/envs/e1/score",
            &json!({"answer": rows[0]["answer"], "info": rows[0]["info"],
                    "completion": [{"role": "assistant", "content": E1_VALID}],
                    "reward_profile": "upstream"}),
        )
        .await
        .json();
    assert!(inline["example_id"].is_null());
    assert_eq!(inline["reward_profile"], "upstream");

    let items: Vec<Value> = rows
        .iter()
        .map(|r| json!({"example_id": r["example_id"], "completion": E1_VALID}))
        .collect();
    let batch: Value = s
        .post(
            "/v1/envs/e1/score_batch",
            &json!({"items": items, "advantage": {"mode": "grpo", "group_size": 2}}),
        )
        .await
        .json();
    assert_eq!(batch["results"].as_array().unwrap().len(), 4);
    let adv = batch["advantages"].as_array().unwrap();
    assert_eq!(adv.len(), 4);
    // Advantages of each group of two sum to zero.
    for g in adv.chunks(2) {
        let sum: f64 = g.iter().map(|a| a.as_f64().unwrap()).sum();
        assert!(sum.abs() < 1e-9, "{adv:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e1_episode_lifecycle() {
    let s = TestApp::default();
    let r = s.post("/v1/envs/e1/episodes", &json!({"index": 0})).await;
    assert_eq!(r.status(), 201);
    let reset: Value = r.json();
    for key in [
        "episode_id",
        "example_id",
        "observation",
        "tools",
        "max_turns",
        "tool_budget",
        "expires_at",
    ] {
        assert!(reset.get(key).is_some(), "{key} missing: {reset}");
    }
    assert_eq!(reset["max_turns"], 1);
    let id = reset["episode_id"].as_str().unwrap();
    assert!(!reset["observation"]["messages"]
        .as_array()
        .unwrap()
        .is_empty());

    let info: Value = s.get(&format!("/v1/episodes/{id}")).await.json();
    assert_eq!(info["episode_id"], id);
    assert_eq!(info["env"], "sv-env-network-logs");
    assert_eq!(info["example_id"], reset["example_id"]);
    assert_eq!(info["turn"], 0);
    assert_eq!(info["done"], false);
    assert!(info["expires_at"].as_str().unwrap().ends_with('Z'));

    let step: Value = s
        .post(
            &format!("/v1/episodes/{id}/step"),
            &json!({"message": {"role": "assistant", "content": E1_VALID}}),
        )
        .await
        .json();
    assert_eq!(step["done"], true);
    assert_eq!(step["turn"], 1);
    assert_eq!(step["truncated"], false);
    assert_eq!(step["tool_interactions"], json!([]));
    assert_eq!(step["observation"]["messages"], json!([]));
    assert!(step["reward"]["reward"].is_number());

    let info: Value = s.get(&format!("/v1/episodes/{id}")).await.json();
    assert_eq!(info["done"], true);
    assert_eq!(info["turn"], 1);

    let r = s.delete(&format!("/v1/episodes/{id}")).await;
    assert_eq!(r.status(), 204);
    assert_eq!(s.state.episodes.live(), 0);
    crate::common::expect_error(
        s.get(&format!("/v1/episodes/{id}")).await,
        404,
        "episode_not_found",
    );
}

/// Every line of the exposition is a comment or `name{labels} value`.
fn check_exposition(text: &str) -> Vec<(String, f64)> {
    let mut samples = Vec::new();
    for line in text.lines() {
        if line.is_empty() || line.starts_with("# HELP ") || line.starts_with("# TYPE ") {
            continue;
        }
        let (series, value) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("line `{line}`"));
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("value in `{line}`"));
        let name_end = series.find('{').unwrap_or(series.len());
        let name = &series[..name_end];
        assert!(
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
            "metric name in `{line}`"
        );
        if name_end < series.len() {
            let labels = &series[name_end..];
            assert!(
                labels.starts_with('{') && labels.ends_with('}'),
                "labels in `{line}`"
            );
            let inner = &labels[1..labels.len() - 1];
            if !inner.is_empty() {
                for pair in split_labels(inner) {
                    let (k, v) = pair
                        .split_once('=')
                        .unwrap_or_else(|| panic!("label in `{line}`"));
                    assert!(
                        !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    );
                    assert!(
                        v.starts_with('"') && v.ends_with('"') && v.len() >= 2,
                        "label value in `{line}`"
                    );
                }
            }
        }
        samples.push((series.to_string(), value));
    }
    samples
}

/// Splits `a="x",b="y,z"` at commas outside quotes.
fn split_labels(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in s.char_indices() {
        match c {
            '\\' if quoted && !escaped => {
                escaped = true;
                continue;
            }
            '"' if !escaped => quoted = !quoted,
            ',' if !quoted => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        escaped = false;
    }
    out.push(&s[start..]);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_parse_and_count() {
    let s = TestApp::default();
    let rows = s.rows("e2", 1).await;
    // Traffic on every family: a score, an E2 episode with a tool call.
    s.post(
        "/v1/envs/e1/score",
        &json!({"answer": "Benign", "completion": E1_VALID}),
    )
    .await;
    let id = s
        .reset("e2", &json!({"example_id": rows[0]["example_id"]}))
        .await;
    s.post(
        &format!("/v1/episodes/{id}/step"),
        &json!({"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[\"manifest.yaml\"]}"}}]}}),
    )
    .await;
    s.get("/no/such/route").await;

    let r = s.get("/metrics").await;
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let text = r.text();
    let samples = check_exposition(&text);
    let has = |prefix: &str| samples.iter().any(|(s, _)| s.starts_with(prefix));
    for name in [
        "svbench_http_requests_total{",
        "svbench_http_request_duration_seconds_bucket{",
        "svbench_live_episodes",
        "svbench_episodes_total{",
        "svbench_scores_total{",
        "svbench_tool_calls_total{",
        "svbench_tool_duration_seconds_bucket{",
    ] {
        assert!(has(name), "{name} missing:\n{text}");
    }
    assert!(text.contains("# TYPE svbench_episode_evictions_total counter"));
    assert!(
        samples.contains(&("svbench_live_episodes".into(), 1.0)),
        "{text}"
    );
    assert!(text.contains(
        "svbench_tool_calls_total{env=\"sv-env-config-verification\",tool=\"run_kubelinter\",ok=\"true\"} 1"
    ), "{text}");
    assert!(
        text.contains(
            "svbench_http_requests_total{route=\"/v1/envs/{env}/score\",status=\"200\"} 1"
        ),
        "{text}"
    );
    assert!(
        text.contains("svbench_http_requests_total{route=\"unmatched\",status=\"404\"} 1"),
        "{text}"
    );
}

/// Every `$ref` of the document, for checking they resolve.
fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("$ref", Value::String(r)) => out.push(r.clone()),
                    _ => refs(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_document_covers_the_routes_and_resolves() {
    let s = TestApp::default();
    let r = s.get("/v1/openapi.json").await;
    assert_eq!(r.status(), 200);
    let doc: Value = r.json();
    assert_eq!(doc["openapi"], "3.1.0");
    for path in [
        "/healthz",
        "/readyz",
        "/metrics",
        "/v1/envs",
        "/v1/envs/{env}",
        "/v1/envs/{env}/splits/{split}/rows",
        "/v1/envs/{env}/splits/{split}/rows/{index}",
        "/v1/envs/{env}/score",
        "/v1/envs/{env}/score_batch",
        "/v1/envs/{env}/episodes",
        "/v1/episodes/{id}/step",
        "/v1/episodes/{id}",
    ] {
        assert!(doc["paths"].get(path).is_some(), "{path} missing");
    }
    let score = &doc["components"]["schemas"]["ScoreRequest"]["properties"];
    assert!(score.get("completion").is_some() && score.get("example_id").is_some());
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(!all.is_empty());
    for r in all {
        let pointer = r.strip_prefix('#').expect("local ref");
        assert!(doc.pointer(pointer).is_some(), "{r} does not resolve");
    }
}
