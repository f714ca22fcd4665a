//! `/score` gives what `svbench_api::Service::score` gives, to the bit, an
//! E2 episode runs its tools and ends with a reward, and E4 is scored over a
//! loopback socket by example id and inline.

use serde_json::{json, Value};
use svbench_api::envs::{EnvConfig, EnvId};
use svbench_api::score::ScoreRequest;
use svbench_api::Service;

use crate::common::{expect_error, Http, TestApp, TestServer};

/// Scores over HTTP and in-process; asserts identical totals and components.
async fn assert_parity(s: &impl Http, service: &Service, env: &str, body: Value) -> Value {
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

/// E4's oracle-style answer to a row: the gold label, confidence 1.0 and the
/// texts of the gold spans relevant to it (phish spans for Phishing, all of
/// them for Abstain).
fn e4_oracle_answer(answer: &str, info: &Value) -> String {
    let evidence: Vec<&str> = info["meta"]["spans"]
        .as_array()
        .expect("gold spans")
        .iter()
        .filter(|s| match answer {
            "Phishing" => s["polarity"] == "phish",
            "Legitimate" => s["polarity"] == "benign",
            _ => true,
        })
        .filter_map(|s| s["text"].as_str())
        .collect();
    json!({"label": answer, "confidence": 1.0, "evidence": evidence}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e4_scores_by_id_and_inline_over_loopback() {
    let s = TestServer::default().await;
    let service = Service::new();
    let configured = service
        .configured(EnvId::resolve("e4").unwrap(), &EnvConfig::default())
        .unwrap();
    let split = service.split(&configured, "test").unwrap();
    for (gold, expected) in [("Phishing", 1.70), ("Abstain", 1.6375)] {
        let example = split
            .examples
            .iter()
            .find(|e| e.answer == gold)
            .expect("a row of each label");
        let info = example.info_value();
        // The row the server lists is the one scored in process.
        let listed: Value = s
            .get(&format!(
                "/v1/envs/e4/splits/test/rows/{}?include_answer=true",
                example.index
            ))
            .await
            .json();
        assert_eq!(listed["example_id"], example.id.as_str());
        assert_eq!(listed["info"], info);
        let user = listed["prompt"][1]["content"].as_str().unwrap();
        assert!(user.contains(&example.question), "{user}");

        let completion = e4_oracle_answer(gold, &info);
        let by_id = assert_parity(
            &s,
            &service,
            "e4",
            json!({"example_id": example.id, "completion": completion}),
        )
        .await;
        let reward = by_id["reward"].as_f64().unwrap();
        assert!((reward - expected).abs() < 1e-12, "{gold}: {by_id}");
        let inline = json!({"answer": gold, "info": info, "question": example.question,
                            "completion": completion});
        let scored = assert_parity(&s, &service, "phishing-detection", inline.clone()).await;
        assert_eq!(scored["reward"], by_id["reward"]);
        assert_eq!(scored["rewards"], by_id["rewards"]);
        assert_eq!(scored["example_id"], Value::Null);

        let garbage = assert_parity(
            &s,
            &service,
            "e4",
            json!({"example_id": example.id, "completion": "no idea, sorry"}),
        )
        .await;
        assert_eq!(garbage["reward"], 0.0, "{garbage}");
        assert_eq!(garbage["parse"]["status"], "invalid");

        let mut without_email = inline;
        without_email.as_object_mut().unwrap().remove("question");
        let body = expect_error(
            s.post("/v1/envs/e4/score", &without_email).await,
            400,
            "bad_request",
        );
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`question`"),
            "{body}"
        );
    }
}
