//! `/score` gives what `svbench_api::Service::score` gives, to the bit, and
//! an E2 episode runs its tools and ends with a reward.

use serde_json::{json, Value};
use svbench_api::score::ScoreRequest;
use svbench_api::Service;

use crate::common::{Http, TestApp};

/// Scores over HTTP and in-process; asserts identical totals and components.
async fn assert_parity(s: &TestApp, service: &Service, env: &str, body: Value) -> Value {
    let http: Value = {
        let r = s.post(&format!("/v1/envs/{env}/score"), &body).await;
        assert_eq!(r.status(), 200, "{body}");
        r.json()
    };
    let req: ScoreRequest = serde_json::from_value(body.clone()).unwrap();
    let direct = service.score(env, &req).unwrap();
    let reward = http["reward"].as_f64().unwrap();
    assert_eq!(reward.to_bits(), direct.reward.to_bits(), "{body}");
    let components = http["rewards"].as_object().unwrap();
    assert_eq!(components.len(), direct.rewards.len());
    for (name, value) in &direct.rewards {
        assert_eq!(
            components[name].as_f64().unwrap().to_bits(),
            value.to_bits(),
            "{name} of {body}"
        );
    }
    assert_eq!(http, serde_json::to_value(&direct).unwrap());
    http
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn score_matches_the_api_bit_for_bit() {
    let s = TestApp::default();
    let service = Service::new();
    let e1 = s.rows("e1", 1).await;
    let e1_id = e1[0]["example_id"].clone();
    let valid = assert_parity(
        &s,
        &service,
        "e1",
        json!({"example_id": e1_id, "completion": "{\"label\":\"Malicious\",\"confidence\":0.73}"}),
    )
    .await;
    assert_eq!(valid["parse"]["status"], "valid");
    let wrapped = assert_parity(
        &s,
        &service,
        "e1",
        json!({"example_id": e1_id,
               "completion": [{"role": "assistant", "content": "```json\n{\"label\": \"Benign\", \"confidence\": 0.61}\n```"}]}),
    )
    .await;
    assert_ne!(wrapped["parse"]["status"], "invalid");
    let malformed = assert_parity(
        &s,
        &service,
        "e1",
        json!({"example_id": e1_id, "completion": "I cannot decide.", "reward_profile": "upstream"}),
    )
    .await;
    assert_ne!(malformed["parse"]["status"], "valid");

    // E2, a completion that used a tool before answering.
    let e2 = s.rows("e2", 100).await;
    let labelled = |r: &Value| {
        r.pointer("/info/info/violations")
            .and_then(Value::as_array)
            .is_some_and(|v| !v.is_empty())
    };
    let row = e2
        .iter()
        .find(|r| labelled(r))
        .expect("an E2 row with findings");
    let violations: Vec<Value> = row.pointer("/info/info/violations").and_then(Value::as_array)
        .unwrap()
        .iter()
        .map(|v| json!({"id": format!("{}/{}", v["tool"].as_str().unwrap(), v["rule_id"].as_str().unwrap()), "severity": "med"}))
        .collect();
    let answer = json!({"violations": violations, "patch": "", "confidence": 0.7}).to_string();
    let completion = json!([
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "run_kubelinter", "arguments": "{\"paths\":[\"manifest.yaml\"]}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"findings\":[]}"},
        {"role": "assistant", "content": answer},
    ]);
    let scored = assert_parity(
        &s,
        &service,
        "e2",
        json!({"example_id": row["example_id"], "completion": completion}),
    )
    .await;
    assert!(scored["reward"].as_f64().unwrap() > 0.0, "{scored}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e2_episode_runs_tools_then_scores() {
    let s = TestApp::default();
    let reset: Value = s
        .post("/v1/envs/e2/episodes", &json!({"index": 0}))
        .await
        .json();
    let id = reset["episode_id"].as_str().unwrap();
    let tools: Vec<&str> = reset["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
        .collect();
    assert!(tools.contains(&"run_kubelinter"), "{tools:?}");
    assert_eq!(reset["tool_budget"], 3);

    let step1: Value = s
        .post(
            &format!("/v1/episodes/{id}/step"),
            &json!({"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "name": "run_kubelinter", "arguments": {"paths": ["manifest.yaml"]}}]}}),
        )
        .await
        .json();
    assert_eq!(step1["done"], false);
    assert_eq!(step1["turn"], 1);
    assert!(step1.get("reward").is_none(), "{step1}");
    let messages = step1["observation"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["role"], "tool");
    assert_eq!(messages[0]["tool_call_id"], "call_1");
    let result: Value = serde_json::from_str(messages[0]["content"].as_str().unwrap()).unwrap();
    assert!(result["findings"].is_array(), "{result}");
    let interactions = step1["tool_interactions"].as_array().unwrap();
    assert_eq!(interactions.len(), 1);
    assert_eq!(interactions[0]["tool"], "run_kubelinter");
    assert_eq!(interactions[0]["ok"], true);

    let step2: Value = s
        .post(
            &format!("/v1/episodes/{id}/step"),
            &json!({"message": {"role": "assistant",
                "content": "{\"violations\": [], \"patch\": \"\", \"confidence\": 0.5}"}}),
        )
        .await
        .json();
    assert_eq!(step2["done"], true);
    assert_eq!(step2["turn"], 2);
    assert!(step2["reward"]["reward"].is_number(), "{step2}");
    assert_eq!(step2["reward"]["example_id"], reset["example_id"]);
}
