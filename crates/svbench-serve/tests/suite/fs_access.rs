//! Path-valued environment arguments over HTTP (issue 13 item 3) and inline
//! references that cannot be scored against (item 10), driven through the
//! router with `tower::ServiceExt::oneshot` (no socket).

use std::path::Path;
use std::sync::Arc;

use axum::http::StatusCode;
use serde_json::{json, Value};
use svbench_api::FsAccess;
use svbench_serve::{router, AppState, ServeConfig};
use tower::ServiceExt;

use crate::common::{post_json, Reply};

const SECRET: &str = "tok_5b1c9e2f_do_not_echo";
const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx:1.25\n";
const GOOD_POLICY: &str = "package sv.k8s\n\ndeny contains {\"id\": \"USR_NAME\", \"severity\": \"low\", \"message\": \"short name\"} if {\n    count(input.object.metadata.name) < 4\n}\n";

/// One request to a fresh state that loads only what the route needs (not
/// [`crate::common::TestApp`], which loads every environment first).
async fn call(config: ServeConfig, path: &str, body: &Value) -> (StatusCode, Value) {
    let app = router(Arc::new(AppState::new(config)));
    let response = app
        .oneshot(post_json(path, body))
        .await
        .expect("infallible");
    let reply = Reply::of(response).await;
    (reply.status(), reply.json())
}

fn score_body(env_args: Value) -> Value {
    json!({
        "example_id": "e2-k8s-000003",
        "completion": "{\"violations\":[],\"patch\":\"\",\"confidence\":0.9}",
        "env_args": env_args,
    })
}

async fn score(config: ServeConfig, env_args: Value) -> (StatusCode, Value) {
    call(config, "/v1/envs/e2/score", &score_body(env_args)).await
}

fn allowing(dir: &Path) -> ServeConfig {
    ServeConfig {
        fs_access: FsAccess::within([dir]).expect("allowed dir"),
        ..ServeConfig::default()
    }
}

/// A directory holding a policy that does not parse and quotes a secret.
fn leaky_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("leak.rego"),
        format!("package sv.k8s\napi_token := \"{SECRET}\" deny {{{{{{\n"),
    )
    .expect("write");
    dir
}

fn message(body: &Value) -> String {
    body["error"]["message"].as_str().unwrap_or("").to_string()
}

#[tokio::test]
async fn path_arguments_are_refused_by_default() {
    let leaky = leaky_dir();
    for args in [
        json!({"policy_dirs": "/"}),
        json!({"policy_dirs": ["/etc"]}),
        json!({"policy_dirs": leaky.path().display().to_string()}),
        json!({"semgrep_config": "/etc/passwd", "backend": "external"}),
    ] {
        let (status, body) = score(ServeConfig::default(), args.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{args}: {body}");
        assert_eq!(body["error"]["code"], "invalid_env_args", "{body}");
        let text = body.to_string();
        assert!(!text.contains(SECRET), "file content echoed: {text}");
        assert!(!text.contains(".rego"), "a file listed: {text}");
        assert!(message(&body).contains("--allow-policy-dir"), "{body}");
    }
    // Episodes configure through the same layer.
    let (status, body) = call(
        ServeConfig::default(),
        "/v1/envs/e2/episodes",
        &json!({"example_id": "e2-k8s-000003", "env_args": {"policy_dirs": "/etc"}}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["code"], "invalid_env_args", "{body}");
}

#[tokio::test]
async fn existence_outside_the_allowed_dirs_cannot_be_probed() {
    let allowed = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("p.rego"), GOOD_POLICY).expect("write");
    let existing = outside.path().display().to_string();
    let missing = outside.path().join("no-such-dir").display().to_string();
    let (s1, b1) = score(allowing(allowed.path()), json!({"policy_dirs": existing})).await;
    let (s2, b2) = score(allowing(allowed.path()), json!({"policy_dirs": missing})).await;
    assert_eq!(s1, StatusCode::BAD_REQUEST, "{b1}");
    assert_eq!(s1, s2);
    assert_eq!(
        message(&b1).replace(&existing, "P"),
        message(&b2).replace(&missing, "P"),
        "an existing and a missing path answer alike"
    );
    // `..` and symbolic links out of an allowed directory are outside too.
    let dotdot = allowed
        .path()
        .join("..")
        .join(outside.path().file_name().expect("a temp dir has a name"));
    let (s3, b3) = score(
        allowing(allowed.path()),
        json!({"policy_dirs": dotdot.display().to_string()}),
    )
    .await;
    assert_eq!(s3, StatusCode::BAD_REQUEST, "{b3}");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path(), allowed.path().join("link")).expect("symlink");
        let link = allowed.path().join("link").display().to_string();
        let (s4, b4) = score(allowing(allowed.path()), json!({"policy_dirs": link})).await;
        assert_eq!(s4, StatusCode::BAD_REQUEST, "{b4}");
    }
}

#[tokio::test]
async fn allowed_dirs_load_and_never_echo_their_files() {
    let leaky = leaky_dir();
    let (status, body) = score(
        allowing(leaky.path()),
        json!({"policy_dirs": leaky.path().display().to_string()}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["code"], "invalid_env_args", "{body}");
    assert!(!body.to_string().contains(SECRET), "{body}");

    let good = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(good.path().join("sub")).expect("mkdir");
    std::fs::write(good.path().join("sub/names.rego"), GOOD_POLICY).expect("write");
    let inline = json!({
        "question": POD,
        "answer": {"oracle": []},
        "info": {"violations": [], "lang": "k8s"},
        "completion": "{\"violations\":[],\"patch\":\"\",\"confidence\":0.9}",
        "env_args": {"policy_dirs": [good.path().join("sub").display().to_string()]},
    });
    let (status, body) = call(allowing(good.path()), "/v1/envs/e2/score", &inline).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn an_unusable_inline_reference_is_a_bad_request() {
    for (env, body) in [
        (
            "e1",
            json!({"answer": "maybe", "completion": "{\"label\":\"Benign\",\"confidence\":0.9}"}),
        ),
        ("e1", json!({"answer": {"x": 1}, "completion": "x"})),
        ("e1", json!({"answer": 7, "completion": "x"})),
        (
            "e2",
            json!({"question": POD, "answer": "maybe", "completion": "x"}),
        ),
        (
            "e2",
            json!({"question": POD, "answer": {"oracle": 5}, "completion": "x"}),
        ),
        (
            "e2",
            json!({"question": POD, "answer": [], "info": {"violations": "no"}, "completion": "x"}),
        ),
        (
            "e2",
            json!({"question": POD, "answer": [], "info": {"violations": [], "labelled_namespaces": 3}, "completion": "x"}),
        ),
    ] {
        let (status, got) = call(
            ServeConfig::default(),
            &format!("/v1/envs/{env}/score"),
            &body,
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{env} {body}: {got}");
        assert_eq!(got["error"]["code"], "bad_request", "{got}");
        // The same through a batch.
        let (status, got) = call(
            ServeConfig::default(),
            &format!("/v1/envs/{env}/score_batch"),
            &json!({"items": [body]}),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{env} batch: {got}");
    }
}

#[tokio::test]
async fn padded_argument_names_are_unknown_arguments() {
    // A server that allows one directory: a padded key must not reach a
    // directory outside it, nor tell existing paths from missing ones.
    let allowed = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("p.rego"), GOOD_POLICY).expect("write");
    let existing = outside.path().display().to_string();
    let missing = outside.path().join("nope").display().to_string();
    let mut keys = Vec::new();
    for pad in [" ", "\t", "\n", "\u{a0}", "\u{2003}", "\u{feff}"] {
        keys.push(format!("policy_dirs{pad}"));
        keys.push(format!("{pad}policy_dirs"));
        keys.push(format!("{pad}semgrep_config{pad}"));
    }
    keys.extend([
        "POLICY_DIRS".into(),
        "Policy_dirs".into(),
        "policy_dirs=".into(),
    ]);
    for key in &keys {
        let mut answers = Vec::new();
        for path in [&existing, &missing] {
            let (status, body) =
                score(allowing(allowed.path()), json!({ key.as_str(): path })).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{key:?}: {body}");
            assert_eq!(body["error"]["code"], "invalid_env_args", "{body}");
            assert!(
                message(&body).contains("unknown argument"),
                "{key:?}: {body}"
            );
            answers.push(message(&body));
        }
        assert_eq!(answers[0], answers[1], "{key:?}: existence leaks");
        // Resets configure through the same check.
        let (status, body) = call(
            allowing(allowed.path()),
            "/v1/envs/e2/episodes",
            &json!({"example_id": "e2-k8s-000003", "env_args": { key.as_str(): existing }}),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{key:?}: {body}");
    }
}
