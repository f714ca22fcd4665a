//! Builtin policies go through the same parser and rewards as a model (E1 §8.2.3).

use svbench_core::Completion;
use svbench_envs::e1::env::E1Env;
use svbench_envs::e1::heuristic;
use svbench_envs::e1::Gold;

#[test]
fn heuristic_answers_always_parse_valid_with_format_credit() {
    let questions = [
        "Zeek conn 2024-03-07T14:05:09Z device=ip-camera proto=tcp service=? 51022→23 duration=? orig_bytes=? resp_bytes=? orig_pkts=1 resp_pkts=0 conn_state=S0 flags=S",
        "udp 48330→53",
        "nothing",
        "BEACON",
        "STATUS=OK",
    ];
    for profile in ["v1", "upstream"] {
        let env = E1Env::new(profile, None).unwrap();
        for q in questions {
            let s = env.score(
                &Completion::assistant_text(heuristic::answer_text(q)),
                Gold::Malicious,
            );
            let rec = s.parse_record();
            assert_eq!(
                rec.status,
                svbench_core::ParseStatus::Valid,
                "{profile} {q}"
            );
            assert_eq!(rec.format_ok, Some(true), "{profile} {q}");
        }
    }
}

#[test]
fn upstream_profile_treats_true_and_1_gold_as_malicious() {
    use svbench_envs::e1::dataset::normalize_gold;
    let env = E1Env::new("upstream", None).unwrap();
    let answer = Completion::Text(r#"{"label":"Malicious","confidence":0.9}"#.into());
    for gold in [
        serde_json::json!(true),
        serde_json::json!(1),
        serde_json::json!("malicious"),
    ] {
        let g = normalize_gold(&gold).unwrap();
        let r = env.score(&answer, g).reward;
        assert!((r.total - 1.78).abs() < 1e-12, "{gold}: {}", r.total);
    }
}
