//! Property tests: random Kubernetes-shaped manifests and quantity strings
//! never panic the decoder, the checks or the quantity parser.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use svbench_scan::k8s::quantity::Quantity;
use svbench_scan::kube_linter::{catalogue, lint};
use svbench_scan::{parse_documents, Enabled, Limits};

/// Field names the model reads, so random trees reach deep into the schema.
const KEYS: &[&str] = &[
    "metadata",
    "name",
    "namespace",
    "labels",
    "annotations",
    "spec",
    "template",
    "containers",
    "initContainers",
    "ephemeralContainers",
    "image",
    "securityContext",
    "runAsUser",
    "runAsNonRoot",
    "readOnlyRootFilesystem",
    "privileged",
    "allowPrivilegeEscalation",
    "capabilities",
    "add",
    "drop",
    "resources",
    "limits",
    "requests",
    "memory",
    "cpu",
    "env",
    "value",
    "valueFrom",
    "volumeMounts",
    "volumes",
    "hostPath",
    "path",
    "hostNetwork",
    "hostPID",
    "replicas",
    "selector",
    "matchLabels",
    "matchExpressions",
    "key",
    "operator",
    "values",
    "affinity",
    "podAntiAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
    "topologyKey",
    "labelSelector",
    "jobTemplate",
    "ttlSecondsAfterFinished",
    "serviceAccount",
    "serviceAccountName",
    "items",
    "type",
    "app",
];

const KINDS: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("v1", "Service"),
    ("v1", "List"),
    ("v1", "ReplicationController"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "DaemonSet"),
    ("extensions/v1beta1", "Deployment"),
    ("batch/v1", "CronJob"),
    ("batch/v1", "Job"),
    ("apps.openshift.io/v1", "DeploymentConfig"),
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-zA-Z0-9:./_-]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("1Mi"),
            Just("0"),
            Just("100m"),
            Just("-1"),
            Just("1e3"),
            Just("x")
        ]
        .prop_map(|s| Value::String(s.to_owned())),
    ]
}

fn tree() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|kv| {
                let mut m = Map::new();
                for (k, v) in kv {
                    m.insert((*k).to_owned(), v);
                }
                Value::Object(m)
            }),
        ]
    })
}

fn manifest() -> impl Strategy<Value = String> {
    (prop::sample::select(KINDS), tree(), tree()).prop_map(|((api, kind), spec, meta)| {
        let doc = json!({"apiVersion": api, "kind": kind, "metadata": meta, "spec": spec, "items": [ {"apiVersion": "v1", "kind": "Pod", "spec": spec} ]});
        doc.to_string()
    })
}

proptest! {
    #[test]
    fn random_manifests_never_panic(docs in prop::collection::vec(manifest(), 1..4)) {
        let text = docs.join("\n---\n");
        let parsed = parse_documents(&text, &Limits::default());
        let _ = lint("m.yaml", &parsed, &Enabled::all(catalogue()));
    }

    #[test]
    fn random_quantities_never_panic(text in "[-+]?[0-9.]{0,40}[eEinumkKMGTP]{0,3}[-+]?[0-9]{0,12}") {
        if let Ok(q) = Quantity::parse(&text) {
            let _ = (q.scaled_value(0), q.scaled_value(-3), q.scaled_value(-40), q.scaled_value(40));
        }
    }
}
