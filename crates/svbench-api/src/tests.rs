//! The service against the environments it wraps: same bits as calling the
//! environment directly, every error code it produces, and episodes.

use serde_json::{json, Value};
use svbench_core::Completion;

use crate::envs::{EnvConfig, EnvId};
use crate::error::ErrorCode;
use crate::score::ScoreRequest;
use crate::service::{AdvantageRequest, ResetRequest, ScoreBatchRequest};
use crate::session::Session;
use crate::Service;

const E1_ANSWER: &str = r#"{"label": "Benign", "confidence": 0.8, "rationale": "ssh admin"}"#;
const E2_ANSWER: &str =
    r#"{"violations": [{"tool": "kube-linter", "rule_id": "docker-sock"}], "patch": null}"#;

fn request(example_id: &str, completion: Value) -> ScoreRequest {
    ScoreRequest {
        example_id: Some(example_id.into()),
        completion,
        ..ScoreRequest::default()
    }
}

#[test]
fn e1_scores_are_the_environments_bits() {
    let service = Service::new();
    let configured = service
        .configured(EnvId::resolve("e1").unwrap(), &EnvConfig::default())
        .unwrap();
    let split = service.split(&configured, "test").unwrap();
    let example = &split.examples[0];
    for completion in [
        json!(E1_ANSWER),
        json!(format!("```json\n{E1_ANSWER}\n```")),
        json!("I think it is benign"),
        json!([{"role": "assistant", "content": E1_ANSWER}]),
    ] {
        let got = service
            .score("e1", &request(&example.id, completion.clone()))
            .unwrap();
        let text = match &completion {
            Value::String(s) => Completion::Text(s.clone()),
            Value::Array(m) => Completion::Messages(m.clone()),
            _ => unreachable!(),
        };
        let direct = configured.env.score(example, &text).unwrap();
        assert_eq!(got.reward.to_bits(), direct.reward.total.to_bits());
        assert_eq!(got.rewards, direct.reward.values());
        assert_eq!(got.parse, direct.parse);
        let weighted: f64 = got.weights.iter().map(|(k, w)| w * got.rewards[k]).sum();
        assert!((weighted - got.reward).abs() < 1e-12);
    }
}

#[test]
fn inline_reference_scores_like_the_example() {
    let service = Service::new();
    let configured = service
        .configured(EnvId::resolve("e1").unwrap(), &EnvConfig::default())
        .unwrap();
    let example = service.split(&configured, "test").unwrap().examples[0].clone();
    let by_id = service
        .score(
            "sv-env-network-logs",
            &request(&example.id, json!(E1_ANSWER)),
        )
        .unwrap();
    let inline = service
        .score(
            "network-logs",
            &ScoreRequest {
                answer: Some(example.answer.clone()),
                info: Some(example.info_value()),
                completion: json!(E1_ANSWER),
                ..ScoreRequest::default()
            },
        )
        .unwrap();
    assert_eq!(inline.reward.to_bits(), by_id.reward.to_bits());
    assert_eq!(inline.example_id, None);
}

#[test]
fn errors_carry_their_codes() {
    let service = Service::new();
    let code = |env: &str, req: ScoreRequest| service.score(env, &req).unwrap_err().code;
    assert_eq!(code("e9", request("x", json!("a"))), ErrorCode::UnknownEnv);
    assert_eq!(
        code("e1", request("no-such-id", json!("a"))),
        ErrorCode::UnknownExample
    );
    let mut r = request("x", json!("a"));
    r.split = Some("nope".into());
    assert_eq!(code("e1", r), ErrorCode::UnknownSplit);
    assert_eq!(
        code(
            "e1",
            ScoreRequest {
                completion: json!("a"),
                ..ScoreRequest::default()
            }
        ),
        ErrorCode::BadRequest
    );
    assert_eq!(
        code(
            "e2",
            ScoreRequest {
                answer: Some(json!([])),
                completion: json!("a"),
                ..ScoreRequest::default()
            }
        ),
        ErrorCode::BadRequest
    );
    let mut r = request("x", json!("a"));
    r.env_args = Some(serde_json::Map::from_iter([("nope".to_string(), json!(1))]));
    assert_eq!(code("e2", r.clone()), ErrorCode::InvalidEnvArgs);
    assert_eq!(code("e1", r), ErrorCode::InvalidEnvArgs);
    let mut r = request("x", json!("a"));
    r.reward_profile = Some("v9".into());
    assert_eq!(code("e1", r), ErrorCode::InvalidEnvArgs);
    let mut r = request("x", json!(5));
    r.example_id = None;
    r.answer = Some(json!("Benign"));
    assert_eq!(code("e1", r), ErrorCode::BadRequest);
}

#[test]
fn reward_config_overrides_change_the_hash() {
    let service = Service::new();
    let base = service
        .configured(EnvId::resolve("e1").unwrap(), &EnvConfig::default())
        .unwrap();
    let bad = service.configured(
        EnvId::resolve("e1").unwrap(),
        &EnvConfig {
            reward_config: Some(json!({"v1": {"no_such_key": 1}})),
            ..EnvConfig::default()
        },
    );
    assert_eq!(bad.unwrap_err().code, ErrorCode::InvalidEnvArgs);
    let upstream = service
        .configured(
            EnvId::resolve("e1").unwrap(),
            &EnvConfig {
                reward_profile: Some("upstream".into()),
                ..EnvConfig::default()
            },
        )
        .unwrap();
    assert_ne!(base.config_hash, upstream.config_hash);
    let names: Vec<&str> = upstream.weights.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "reward_accuracy",
            "format_reward",
            "reward_calibration",
            "reward_asymmetric_cost"
        ]
    );
}

#[test]
fn score_batch_computes_grpo_over_totals() {
    let service = Service::new();
    let configured = service
        .configured(EnvId::resolve("e1").unwrap(), &EnvConfig::default())
        .unwrap();
    let id = service.split(&configured, "test").unwrap().examples[0]
        .id
        .clone();
    let items = vec![
        request(&id, json!(E1_ANSWER)),
        request(&id, json!("garbage")),
        request(&id, json!(E1_ANSWER)),
        request(&id, json!("garbage")),
    ];
    let out = service
        .score_batch(
            "e1",
            &ScoreBatchRequest {
                items,
                advantage: Some(AdvantageRequest {
                    mode: "grpo".into(),
                    group_size: 2,
                    eps: None,
                    ddof: None,
                }),
                context: None,
            },
        )
        .unwrap();
    let totals: Vec<f64> = out.results.iter().map(|r| r.reward).collect();
    let expected = svbench_core::advantage::grpo(
        &totals,
        &svbench_core::advantage::Grouping::Contiguous(2),
        svbench_core::advantage::Norm::default(),
    )
    .unwrap();
    assert_eq!(out.advantages.unwrap(), expected);
    let err = service
        .score_batch(
            "e1",
            &ScoreBatchRequest {
                items: vec![request(&id, json!("a")), request("missing", json!("a"))],
                advantage: None,
                context: None,
            },
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownExample);
    assert_eq!(err.details, json!({"item": 1}));
}

#[test]
fn reset_requests_start_the_example_they_name() {
    let service = Service::new();
    let e1 = EnvId::resolve("e1").unwrap();
    let start = |body: Value| {
        let req: ResetRequest = serde_json::from_value(body).unwrap();
        service.start_episode(e1, req)
    };
    let by_index = start(json!({"index": 1})).unwrap();
    assert_eq!(by_index.turn(), 0);
    let id = by_index.example().id.clone();
    let by_id = start(json!({"example_id": id, "split": "test"})).unwrap();
    assert_eq!(by_id.example().id, id);
    let err = |body: Value| start(body).unwrap_err();
    assert_eq!(err(json!({})).code, ErrorCode::BadRequest);
    assert_eq!(
        err(json!({"index": 0, "example_id": id})).code,
        ErrorCode::BadRequest
    );
    let unknown = err(json!({"example_id": "nope"}));
    assert_eq!(unknown.code, ErrorCode::UnknownExample);
    assert_eq!(unknown.message, "no example `nope` in split `test`");
    assert_eq!(
        err(json!({"index": 0, "split": "nope"})).code,
        ErrorCode::UnknownSplit
    );
    let tools = err(json!({"index": 0, "tool_budget": 2}));
    assert_eq!(tools.message, "E1 has no tools: --tool-budget must be 0");
    assert!(serde_json::from_value::<ResetRequest>(json!({"nope": 1})).is_err());
}

fn e2_example(
    service: &Service,
) -> (
    std::sync::Arc<crate::envs::Configured>,
    svbench_core::Example,
) {
    let configured = service
        .configured(EnvId::resolve("e2").unwrap(), &EnvConfig::default())
        .unwrap();
    let example = service
        .split(&configured, "test")
        .unwrap()
        .by_id("e2-k8s-000004")
        .unwrap()
        .clone();
    (configured, example)
}

#[test]
fn e2_episode_runs_tools_then_scores_like_stateless() {
    let service = Service::new();
    let (configured, example) = e2_example(&service);
    let mut session = Session::start(configured, example.clone());
    assert_eq!(session.tools().len(), 3);
    let call = json!({"role": "assistant", "content": null,
        "tool_calls": [{"id": "c1", "name": "run_kubelinter", "arguments": {"paths": ["manifest.yaml"]}}]});
    let first = session.step(&call).unwrap();
    assert!(!first.done);
    assert_eq!(first.messages.len(), 1);
    assert!(first.messages[0]["content"]
        .as_str()
        .unwrap()
        .contains("docker-sock"));
    assert!(first.tool_interactions[0].ok);
    let done = session
        .step(&json!({"role": "assistant", "content": E2_ANSWER}))
        .unwrap();
    assert!(done.done && !done.truncated);
    let reward = done.reward.unwrap();
    let stateless = service
        .score(
            "e2",
            &request(&example.id, Value::Array(session.transcript().to_vec())),
        )
        .unwrap();
    assert_eq!(reward.reward.to_bits(), stateless.reward.to_bits());
    assert_eq!(reward.rewards, stateless.rewards);
    assert_eq!(
        session
            .step(&json!({"role": "assistant", "content": "again"}))
            .unwrap_err()
            .code,
        ErrorCode::EpisodeDone
    );
}

#[test]
fn e2_turn_limit_with_pending_calls_is_no_answer() {
    let service = Service::new();
    let configured = service
        .configured(
            EnvId::resolve("e2").unwrap(),
            &EnvConfig {
                max_turns: Some(1),
                ..EnvConfig::default()
            },
        )
        .unwrap();
    let example = service.split(&configured, "test").unwrap().examples[0].clone();
    let mut session = Session::start(configured, example);
    let out = session
        .step(&json!({"role": "assistant", "content": E2_ANSWER,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "run_semgrep", "arguments": "{}"}}]}))
        .unwrap();
    assert!(out.done && out.truncated);
    let reward = out.reward.unwrap();
    assert_eq!(reward.parse.status, svbench_core::ParseStatus::NoAnswer);
    assert_eq!(reward.parse.reason.as_deref(), Some("turn_limit"));
    let bad = session
        .step(&json!({"role": "user", "content": "x"}))
        .unwrap_err();
    assert_eq!(bad.code, ErrorCode::EpisodeDone);
}

#[test]
fn e2_budget_exhaustion_is_a_tool_result() {
    let service = Service::new();
    let configured = service
        .configured(
            EnvId::resolve("e2").unwrap(),
            &EnvConfig {
                tool_budget: Some(0),
                ..EnvConfig::default()
            },
        )
        .unwrap();
    let example = service.split(&configured, "test").unwrap().examples[0].clone();
    let mut session = Session::start(configured, example);
    let out = session
        .step(&json!({"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "name": "run_opa", "arguments": "{\"paths\": []}"}]}))
        .unwrap();
    assert!(out.messages[0]["content"]
        .as_str()
        .unwrap()
        .contains("budget_exhausted"));
    assert!(session
        .step(&json!({"role": "tool", "content": "x"}))
        .is_err());
}

#[test]
fn catalogue_lists_every_environment() {
    let service = Service::new();
    for id in crate::envs::all() {
        let info = service.env_info(id).unwrap();
        assert_eq!(info.splits.len(), id.splits().len());
        assert!(info
            .splits
            .iter()
            .all(|s| s.rows > 0 && s.dataset_sha256.len() == 64));
        assert_eq!(info.reward_profiles.len(), 2);
    }
    let e2 = service.env_info(EnvId::resolve("e2").unwrap()).unwrap();
    assert_eq!((e2.max_turns, e2.tool_budget, e2.tools.len()), (5, 3, 3));
}

/// A caller's deadline ends the scoring work itself (issue 13 item 2): an
/// E2 score whose live-oracle scan cannot finish by it is `timeout`.
#[test]
fn score_within_a_passed_deadline_is_a_timeout() {
    use std::time::{Duration, Instant};
    use svbench_envs::environment::Deadline;

    let service = Service::new();
    let mut env_args = serde_json::Map::new();
    env_args.insert("oracle".into(), json!("live"));
    // An inline config (a split's configs are scanned, and cached, when the
    // split is labelled live).
    let req = ScoreRequest {
        env_args: Some(env_args),
        question: Some(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n"
                .into(),
        ),
        answer: Some(json!([])),
        info: Some(json!({"meta": {"lang": "k8s"}})),
        completion: json!(E2_ANSWER),
        ..ScoreRequest::default()
    };
    let passed = Deadline::at(Instant::now(), Duration::from_secs(1));
    let err = service.score_within("e2", &req, passed).unwrap_err();
    assert_eq!(err.code, ErrorCode::Timeout, "{}", err.message);
    assert!(err.message.contains("time budget"), "{}", err.message);
    // Without a deadline the same request scores.
    assert!(service.score("e2", &req).is_ok());
}

/// E4's oracle-style answer to a row: the gold label, confidence 1.0 and the
/// texts of the gold spans relevant to that label (phish spans for
/// Phishing, benign ones for Legitimate, all of them for Abstain).
fn e4_oracle_answer(example: &svbench_core::Example) -> String {
    let gold = example.answer.as_str().expect("a gold label");
    let wanted = match gold {
        "Phishing" => Some("phish"),
        "Legitimate" => Some("benign"),
        _ => None,
    };
    let info = example.info_value();
    let evidence: Vec<&str> = info["meta"]["spans"]
        .as_array()
        .expect("gold spans")
        .iter()
        .filter(|s| wanted.is_none_or(|p| s["polarity"] == p))
        .filter_map(|s| s["text"].as_str())
        .collect();
    json!({"label": gold, "confidence": 1.0, "evidence": evidence}).to_string()
}

#[test]
fn e4_inline_reference_needs_the_email_and_scores_like_the_example() {
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
        let answer = json!(e4_oracle_answer(example));
        let by_id = service
            .score("e4", &request(&example.id, answer.clone()))
            .unwrap();
        assert!((by_id.reward - expected).abs() < 1e-12, "{gold}: {by_id:?}");
        let inline = ScoreRequest {
            answer: Some(example.answer.clone()),
            info: Some(example.info_value()),
            question: Some(example.question.clone()),
            completion: answer.clone(),
            ..ScoreRequest::default()
        };
        let got = service.score("phishing-detection", &inline).unwrap();
        assert_eq!(got.reward.to_bits(), by_id.reward.to_bits());
        assert_eq!(got.rewards, by_id.rewards);
        assert_eq!(got.example_id, None);

        // Without the email the evidence has nothing to be grounded in.
        let err = service
            .score(
                "e4",
                &ScoreRequest {
                    question: None,
                    ..inline.clone()
                },
            )
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::BadRequest);
        assert!(err.message.contains("`question`"), "{}", err.message);
        // Another text than the row's email does not match its gold spans.
        let err = service
            .score(
                "e4",
                &ScoreRequest {
                    question: Some(format!("<email>\n{}\n</email>", example.question)),
                    ..inline
                },
            )
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::BadRequest, "{}", err.message);
        assert!(err.message.contains("meta.spans"), "{}", err.message);
    }
}

/// Keys that only resemble an argument name: padded with ASCII or Unicode
/// whitespace, another case, or carrying an `=`.
fn lookalikes(name: &str) -> Vec<String> {
    let mut keys = Vec::new();
    for pad in [
        " ", "\t", "\n", "\r", "\u{a0}", "\u{2003}", "\u{3000}", "\u{feff}",
    ] {
        keys.push(format!("{name}{pad}"));
        keys.push(format!("{pad}{name}"));
        keys.push(format!("{pad}{name}{pad}"));
    }
    keys.push(name.to_uppercase());
    keys.push(format!("{}{}", name[..1].to_uppercase(), &name[1..]));
    keys.push(format!("{name}=/"));
    keys
}

#[test]
fn argument_names_are_exact() {
    let e2 = EnvId::resolve("e2").unwrap();
    let outside = std::env::temp_dir().display().to_string();
    for name in ["policy_dirs", "semgrep_config", "lang"] {
        for key in lookalikes(name) {
            let config = EnvConfig {
                env_args: [(key.clone(), json!(outside))].into_iter().collect(),
                ..EnvConfig::default()
            };
            // Both a server's service (no paths) and the local one refuse
            // it, before any path is looked at.
            for service in [
                Service::new(),
                Service::with_fs_access(crate::FsAccess::Local),
            ] {
                let err = service.configured(e2, &config).expect_err(&key);
                assert_eq!(err.code, ErrorCode::InvalidEnvArgs, "{key:?}");
                assert!(err.message.contains("unknown argument"), "{}", err.message);
                assert!(
                    err.message.contains(&format!("{key:?}")),
                    "the key is named as given: {}",
                    err.message
                );
            }
        }
    }
    // The exact name still works.
    let config = EnvConfig {
        env_args: [("lang".to_string(), json!("tf"))].into_iter().collect(),
        ..EnvConfig::default()
    };
    Service::new().configured(e2, &config).expect("lang=tf");
}

/// A session of E2 with a huge turn limit and tool budget, as a client
/// could ask for.
fn e2_long_session(limits: crate::session::SessionLimits) -> Session {
    let service = Service::new();
    let configured = service
        .configured(
            EnvId::resolve("e2").unwrap(),
            &EnvConfig {
                max_turns: Some(1_000_000_000),
                tool_budget: Some(1_000_000_000),
                ..EnvConfig::default()
            },
        )
        .unwrap();
    let example = service.split(&configured, "test").unwrap().examples[0].clone();
    Session::start(configured, example)
        .with_limits(limits)
        .unwrap()
}

#[test]
fn value_bytes_grows_with_every_unit_of_a_value() {
    use crate::session::value_bytes;
    let node = std::mem::size_of::<Value>();
    assert_eq!(value_bytes(&json!("x".repeat(1000))), node + 1000);
    // Many tiny values cost a node each, not the byte or two of their text.
    let many = Value::Array(vec![json!(0); 10_000]);
    assert_eq!(value_bytes(&many), node * 10_001);
    let keyed = json!({"abc": 1});
    assert!(value_bytes(&keyed) >= 2 * node + 3);
}

#[test]
fn an_episode_never_holds_more_than_its_byte_limit() {
    use crate::session::SessionLimits;
    let limits = SessionLimits {
        max_message_bytes: 64 << 10,
        max_bytes: 1 << 20,
    };
    let mut session = e2_long_session(limits);
    let start = session.held_bytes();
    // Steps of ~32 KiB with a tool call each: the turn limit and the tool
    // budget would allow a billion of them.
    let pad = "p".repeat(32 << 10);
    let call = json!({"role": "assistant", "content": pad,
        "tool_calls": [{"id": "c1", "name": "run_kubelinter", "arguments": {"paths": ["manifest.yaml"]}}]});
    let mut accepted = 0;
    let mut refused = None;
    for _ in 0..1000 {
        let before = (
            session.held_bytes(),
            session.turn(),
            session.transcript().len(),
        );
        match session.step(&call) {
            Ok(out) => {
                assert!(!out.done);
                accepted += 1;
            }
            Err(e) => {
                // Refused whole: nothing of the step stays.
                assert_eq!(
                    (
                        session.held_bytes(),
                        session.turn(),
                        session.transcript().len()
                    ),
                    before
                );
                refused = Some(e);
                break;
            }
        }
        assert!(session.held_bytes() <= limits.max_bytes);
    }
    let e = refused.expect("the byte limit stopped the episode");
    assert_eq!(e.code, ErrorCode::EpisodeTooLarge, "{}", e.message);
    assert_eq!(e.details["limit"], limits.max_bytes);
    // About (limit − start) / step bytes steps fit, not a thousand.
    let per_step = (32 << 10) + std::mem::size_of::<Value>();
    assert!(
        accepted >= 10 && accepted <= (limits.max_bytes - start) / per_step,
        "{accepted}"
    );
    // Held bytes follow what is stored: the transcript's strings at least.
    let stored: usize = session
        .transcript()
        .iter()
        .map(crate::session::value_bytes)
        .sum();
    assert!(session.held_bytes() >= start + stored);
    // The episode is full: even a short answer (whose reward takes room
    // too) may not fit, and is refused whole like any step.
    let held = session.held_bytes();
    if let Err(e) = session.step(&json!({"role": "assistant", "content": E2_ANSWER})) {
        assert_eq!(e.code, ErrorCode::EpisodeTooLarge);
        assert_eq!(session.held_bytes(), held);
        assert!(!session.done());
    }
    assert!(session.held_bytes() <= limits.max_bytes);
}

#[test]
fn a_message_over_the_step_limit_is_refused() {
    use crate::session::SessionLimits;
    let mut session = e2_long_session(SessionLimits {
        max_message_bytes: 1 << 10,
        max_bytes: 1 << 30,
    });
    let held = session.held_bytes();
    let e = session
        .step(&json!({"role": "assistant", "content": "x".repeat(2 << 10)}))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::PayloadTooLarge, "{}", e.message);
    assert_eq!(session.held_bytes(), held);
    assert_eq!(session.turn(), 0);
    // Many tool calls in one message count as the message's size too.
    let calls: Vec<Value> = (0..100)
        .map(|i| json!({"id": format!("c{i}"), "name": "run_opa", "arguments": "{}"}))
        .collect();
    let e = session
        .step(&json!({"role": "assistant", "content": null, "tool_calls": calls}))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::PayloadTooLarge, "{}", e.message);
}
