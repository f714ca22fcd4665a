//! Each must check: fires, does not fire, multiplicity, and the ignore
//! annotations (spec E2 §1.4–1.5).

use svbench_scan::kube_linter::{catalogue, lint};
use svbench_scan::{parse_documents, Analysis, Enabled, Finding, Limits, ObjectRef, Severity};

fn lint_yaml(yaml: &str) -> Analysis {
    let docs = parse_documents(yaml, &Limits::default());
    let a = lint("manifest.yaml", &docs, &Enabled::defaults(catalogue()));
    assert!(a.errors.is_empty(), "unexpected errors: {:?}", a.errors);
    a
}

/// Findings of `rule`.
fn hits<'a>(a: &'a Analysis, rule: &str) -> Vec<&'a Finding> {
    a.findings.iter().filter(|f| f.rule_id == rule).collect()
}

/// Containers named by the findings of `rule`, in order.
fn containers(a: &Analysis, rule: &str) -> Vec<String> {
    hits(a, rule)
        .iter()
        .map(|f| f.container.clone().unwrap_or_default())
        .collect()
}

/// A Pod with the given pod-spec body (indented by 2 under `spec:`).
fn pod(spec: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n{spec}")
}

/// A Deployment whose template has labels `app: web` and the given pod spec
/// (indented by 6).
fn deployment(extra_spec: &str, pod_spec: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n{extra_spec}  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n{pod_spec}"
    )
}

const HARDENED: &str = "    securityContext:\n      runAsUser: 1000\n      runAsNonRoot: true\n      readOnlyRootFilesystem: true\n    resources:\n      limits:\n        memory: 64Mi\n      requests:\n        cpu: 100m\n";

#[test]
fn hardened_pod_has_no_findings() {
    let a = lint_yaml(&pod(&format!(
        "  containers:\n  - name: web\n    image: nginx:1.25\n{HARDENED}"
    )));
    assert!(a.findings.is_empty(), "{:#?}", a.findings);
}

#[test]
fn finding_fields_follow_the_model() {
    let a = lint_yaml(&pod(
        "  containers:\n  - name: web\n    image: nginx:latest\n",
    ));
    let f = hits(&a, "latest-tag")[0];
    assert_eq!(f.severity, Severity::Med);
    assert_eq!(f.container.as_deref(), Some("web"));
    assert_eq!(f.line, Some(8), "the image: line");
    assert_eq!(f.doc_index, Some(0));
    assert!(f.message.contains("container \"web\""), "{}", f.message);
    assert_eq!(
        f.object,
        Some(ObjectRef::K8s {
            api_version: Some("v1".into()),
            kind: "Pod".into(),
            name: Some("p".into()),
            namespace: None,
        })
    );
    assert_eq!(hits(&a, "privileged-container").len(), 0);
}

/// A finding about a field points at that field when it is written, and at
/// the container (or object) when the field is missing.
#[test]
fn field_findings_point_at_the_field() {
    let a = lint_yaml(&pod(concat!(
        "  hostNetwork: true\n",                 // 6
        "  containers:\n",                       // 7
        "  - name: web\n",                       // 8
        "    imagePullPolicy: Always\n",         // 9
        "    image: nginx:latest\n",             // 10
        "    securityContext:\n",                // 11
        "      runAsUser: 0\n",                  // 12
        "      privileged: true\n",              // 13
        "      readOnlyRootFilesystem: false\n", // 14
        "  - name: noimage\n",                   // 15
    )));
    let lines = |rule: &str| -> Vec<(String, Option<usize>)> {
        hits(&a, rule)
            .iter()
            .map(|f| (f.container.clone().unwrap_or_default(), f.line))
            .collect()
    };
    let at = |c: &str, line: usize| (c.to_owned(), Some(line));
    assert_eq!(lines("latest-tag"), [at("web", 10), at("noimage", 15)]);
    assert_eq!(lines("host-network"), [at("", 6)]);
    assert_eq!(lines("privileged-container"), [at("web", 13)]);
    assert_eq!(lines("privilege-escalation-container"), [at("web", 13)]);
    assert_eq!(
        lines("no-read-only-root-fs"),
        [at("web", 14), at("noimage", 15)]
    );
    assert_eq!(lines("run-as-non-root"), [at("web", 12), at("noimage", 15)]);
}

#[test]
fn init_and_ephemeral_containers_get_their_own_findings() {
    let a = lint_yaml(&pod(
        "  initContainers:\n  - name: init\n    image: busybox\n  containers:\n  - name: web\n    image: nginx\n  ephemeralContainers:\n  - name: dbg\n    image: busybox\n",
    ));
    assert_eq!(
        containers(&a, "no-read-only-root-fs"),
        ["init", "web", "dbg"]
    );
    assert_eq!(containers(&a, "run-as-non-root"), ["init", "web", "dbg"]);
}

#[test]
fn run_as_non_root_effective_settings() {
    let case = |pod_sc: &str, ctr_sc: &str| {
        let a = lint_yaml(&pod(&format!(
            "{pod_sc}  containers:\n  - name: c\n    image: x:1\n{ctr_sc}"
        )));
        hits(&a, "run-as-non-root").len()
    };
    assert_eq!(case("", ""), 1);
    assert_eq!(case("  securityContext:\n    runAsUser: 1000\n", ""), 0);
    assert_eq!(case("  securityContext:\n    runAsNonRoot: true\n", ""), 0);
    assert_eq!(
        case(
            "  securityContext:\n    runAsNonRoot: true\n    runAsUser: 0\n",
            ""
        ),
        1,
        "runAsNonRoot with UID 0 fails at runtime"
    );
    assert_eq!(
        case(
            "  securityContext:\n    runAsUser: 1000\n",
            "    securityContext:\n      runAsUser: 0\n"
        ),
        1,
        "the container's UID overrides the pod's"
    );
    assert_eq!(
        case(
            "  securityContext:\n    runAsNonRoot: true\n",
            "    securityContext:\n      runAsNonRoot: false\n"
        ),
        1
    );
}

#[test]
fn read_only_root_fs_must_be_true() {
    let n = |sc: &str| {
        hits(
            &lint_yaml(&pod(&format!(
                "  containers:\n  - name: c\n    image: x:1\n{sc}"
            ))),
            "no-read-only-root-fs",
        )
        .len()
    };
    assert_eq!(n(""), 1);
    assert_eq!(
        n("    securityContext:\n      readOnlyRootFilesystem: false\n"),
        1
    );
    assert_eq!(
        n("    securityContext:\n      readOnlyRootFilesystem: true\n"),
        0
    );
}

#[test]
fn latest_tag_patterns() {
    let fires = |image: &str| {
        let a = lint_yaml(&pod(&format!(
            "  containers:\n  - name: c\n    image: \"{image}\"\n"
        )));
        !hits(&a, "latest-tag").is_empty()
    };
    for image in [
        "nginx",
        "nginx:latest",
        "",
        "host:5000/app",
        "docker.io/library/nginx",
    ] {
        assert!(fires(image), "{image}");
    }
    for image in [
        "nginx:1.25",
        "host:5000/app:2",
        "busybox:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    ] {
        assert!(!fires(image), "{image}");
    }
}

#[test]
fn memory_limit_and_cpu_request() {
    let run = |resources: &str| {
        let a = lint_yaml(&pod(&format!(
            "  containers:\n  - name: c\n    image: x:1\n    resources:\n{resources}"
        )));
        (
            hits(&a, "unset-memory-requirements").len(),
            hits(&a, "unset-cpu-requirements").len(),
        )
    };
    assert_eq!(run("      {}\n"), (1, 1));
    assert_eq!(
        run("      requests:\n        memory: 1Gi\n      limits:\n        cpu: 1\n"),
        (1, 1),
        "memory requests and cpu limits are ignored"
    );
    assert_eq!(
        run("      limits:\n        memory: 0\n      requests:\n        cpu: 0m\n"),
        (1, 1)
    );
    assert_eq!(
        run("      limits:\n        memory: 1m\n      requests:\n        cpu: 0.0001\n"),
        (0, 0),
        "rounded up: 0.001 bytes -> 1, 0.1 millicores -> 1"
    );
    assert_eq!(
        run("      requests:\n        cpu: \"-1\"\n"),
        (1, 0),
        "negative cpu never fires"
    );
    assert_eq!(
        run("      limits:\n        memory: -1m\n      requests:\n        cpu: -0.1m\n"),
        (0, 0),
        "sub-unit negatives round away from zero, so never fire"
    );
}

fn anti_affinity_deployment(replicas: &str, affinity: &str) -> String {
    deployment(
        replicas,
        &format!("{affinity}      containers:\n      - name: web\n        image: x:1\n"),
    )
}

#[test]
fn no_anti_affinity() {
    let n = |replicas: &str, affinity: &str| {
        hits(
            &lint_yaml(&anti_affinity_deployment(replicas, affinity)),
            "no-anti-affinity",
        )
        .len()
    };
    assert_eq!(n("", ""), 0, "absent replicas is 1");
    assert_eq!(n("  replicas: 1\n", ""), 0);
    assert_eq!(n("  replicas: 2\n", ""), 1);
    assert_eq!(
        n(
            "  replicas: 2\n",
            "      affinity:\n        podAntiAffinity: {}\n"
        ),
        1
    );
    let term = |key: &str, selector: &str| format!("        - topologyKey: {key}\n{selector}");
    let sel = "          labelSelector:\n            matchLabels:\n              app: web\n";
    let required = |terms: &str| {
        format!("      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n{terms}")
    };
    let indent = |s: String| s.lines().map(|l| format!("    {l}\n")).collect::<String>();
    assert_eq!(
        n(
            "  replicas: 3\n",
            &required(&indent(term("kubernetes.io/hostname", sel)))
        ),
        0
    );
    assert_eq!(
        n(
            "  replicas: 3\n",
            &required(&indent(
                term("zone", sel) + &term("kubernetes.io/hostname", "")
            ))
        ),
        2,
        "one finding per invalid term (wrong key; absent selector matches nothing)"
    );
    assert_eq!(
        n(
            "  replicas: 3\n",
            &required(&indent(
                term("zone", sel) + &term("kubernetes.io/hostname", sel)
            ))
        ),
        0,
        "one valid term is enough"
    );
}

#[test]
fn anti_affinity_is_checked_on_replication_controllers_not_daemonsets() {
    let rc = "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: rc\nspec:\n  replicas: 2\n  selector:\n    app: one\n  template:\n    metadata:\n      labels:\n        app: two\n    spec:\n      containers:\n      - name: c\n        image: x:1\n";
    let a = lint_yaml(rc);
    assert_eq!(hits(&a, "no-anti-affinity").len(), 1);
    assert_eq!(
        hits(&a, "mismatching-selector").len(),
        0,
        "RC selectors are not read"
    );
}

#[test]
fn dangling_service() {
    let svc = |ns: &str, selector: &str, ty: &str| {
        format!("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n{ns}spec:\n{ty}{selector}")
    };
    let app_web = "  selector:\n    app: web\n";
    let dep = deployment(
        "",
        "      containers:\n      - name: web\n        image: x:1\n",
    );
    let n = |yaml: &str| hits(&lint_yaml(yaml), "dangling-service").len();
    assert_eq!(n(&svc("", "", "")), 1, "no selector");
    assert_eq!(n(&svc("", app_web, "")), 1, "nothing to select");
    assert_eq!(n(&format!("{}---\n{dep}", svc("", app_web, ""))), 0);
    assert_eq!(
        n(&format!(
            "{}---\n{dep}",
            svc("  namespace: default\n", app_web, "")
        )),
        1,
        "an absent namespace is not \"default\""
    );
    assert_eq!(n(&svc("", "", "  type: ExternalName\n")), 0);
    assert_eq!(
        n(&svc("", "  selector:\n    app: \"bad value!\"\n", "")),
        1,
        "invalid"
    );
    let ext = "apiVersion: extensions/v1beta1\nkind: DaemonSet\nmetadata:\n  name: ds\nspec:\n  template:\n    metadata:\n      labels:\n        app: web\n    spec: {}\n";
    assert_eq!(
        n(&format!("{}---\n{ext}", svc("", app_web, ""))),
        0,
        "extensions workloads are pod-bearing for lookups"
    );
}

#[test]
fn privileged_and_escalation() {
    let run = |sc: &str| {
        let a = lint_yaml(&pod(&format!(
            "  containers:\n  - name: c\n    image: x:1\n{sc}"
        )));
        (
            hits(&a, "privileged-container").len(),
            hits(&a, "privilege-escalation-container").len(),
        )
    };
    assert_eq!(run(""), (0, 0));
    assert_eq!(
        run("    securityContext:\n      privileged: true\n"),
        (1, 1)
    );
    assert_eq!(
        run("    securityContext:\n      privileged: true\n      allowPrivilegeEscalation: true\n      capabilities:\n        add: [SYS_ADMIN]\n"),
        (1, 1),
        "at most one escalation finding per container"
    );
    assert_eq!(
        run("    securityContext:\n      capabilities:\n        add: [SYS_ADMIN]\n"),
        (0, 1)
    );
    assert_eq!(
        run("    securityContext:\n      capabilities:\n        add: [sys_admin]\n"),
        (0, 0)
    );
}

#[test]
fn extensions_workloads_only_get_no_extensions_v1beta() {
    let ds = "apiVersion: extensions/v1beta1\nkind: DaemonSet\nmetadata:\n  name: ds\nspec:\n  template:\n    spec:\n      hostNetwork: true\n      containers:\n      - name: c\n        image: nginx\n";
    let a = lint_yaml(ds);
    let ids: Vec<&str> = a.findings.iter().map(|f| f.rule_id.as_str()).collect();
    assert_eq!(ids, ["no-extensions-v1beta"]);
}

#[test]
fn host_namespaces_one_per_object() {
    let a = lint_yaml(&pod(
        "  hostNetwork: true\n  hostPID: true\n  containers:\n  - name: a\n    image: x:1\n  - name: b\n    image: x:1\n",
    ));
    assert_eq!(hits(&a, "host-network").len(), 1);
    assert_eq!(hits(&a, "host-pid").len(), 1);
    assert_eq!(hits(&a, "host-network")[0].container, None);
}

#[test]
fn host_mounts_per_volume_and_mount() {
    let a = lint_yaml(&pod(
        "  containers:\n  - name: a\n    image: x:1\n    volumeMounts:\n    - name: sock\n      mountPath: /var/run/docker.sock\n    - name: etc\n      mountPath: /host/etc\n    - name: proc\n      mountPath: /host/proc\n  - name: b\n    image: x:1\n    volumeMounts:\n    - name: etc\n      mountPath: /etc2\n  volumes:\n  - name: sock\n    hostPath:\n      path: /var/run/docker.sock\n  - name: etc\n    hostPath:\n      path: /etc\n  - name: proc\n    hostPath:\n      path: /proc/\n  - name: unused\n    hostPath:\n      path: /sys\n",
    ));
    assert_eq!(containers(&a, "docker-sock"), ["a"]);
    assert_eq!(
        containers(&a, "sensitive-host-mounts"),
        ["a", "b"],
        "/proc/ is not exactly /proc; unmounted volumes do not count"
    );
    assert_eq!(
        hits(&a, "docker-sock")[0].line,
        Some(10),
        "the mount's line"
    );
}

#[test]
fn env_var_secret() {
    let a = lint_yaml(&pod(
        "  containers:\n  - name: c\n    image: x:1\n    env:\n    - name: DB_SECRET\n      value: hunter2\n    - name: my_secret_key\n      value: x\n    - name: SECRET_EMPTY\n      value: \"\"\n    - name: API_SECRET\n      valueFrom:\n        secretKeyRef:\n          name: s\n          key: k\n    - name: PASSWORD\n      value: x\n",
    ));
    assert_eq!(hits(&a, "env-var-secret").len(), 2);
}

#[test]
fn drop_net_raw_capability() {
    let n = |sc: &str| {
        hits(
            &lint_yaml(&pod(&format!(
                "  containers:\n  - name: c\n    image: x:1\n{sc}"
            ))),
            "drop-net-raw-capability",
        )
        .len()
    };
    assert_eq!(n(""), 0, "no capabilities key, no finding");
    assert_eq!(n("    securityContext:\n      capabilities: {}\n"), 1);
    assert_eq!(
        n("    securityContext:\n      capabilities:\n        drop: [ALL]\n"),
        0
    );
    assert_eq!(
        n("    securityContext:\n      capabilities:\n        drop: [NET_RAW]\n"),
        0
    );
    assert_eq!(
        n("    securityContext:\n      capabilities:\n        add: [NET_RAW, all]\n"),
        3,
        "two added + not dropped"
    );
}

#[test]
fn service_account_checks() {
    let with_sa = |fields: &str| {
        pod(&format!(
            "{fields}  containers:\n  - name: c\n    image: x:1\n"
        ))
    };
    let run = |yaml: &str| {
        let a = lint_yaml(yaml);
        (
            hits(&a, "deprecated-service-account-field").len(),
            hits(&a, "non-existent-service-account").len(),
        )
    };
    assert_eq!(run(&with_sa("")), (0, 0));
    assert_eq!(run(&with_sa("  serviceAccount: default\n")), (1, 0));
    assert_eq!(
        run(&with_sa("  serviceAccount: a\n  serviceAccountName: a\n")),
        (0, 1)
    );
    let sa = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n";
    assert_eq!(
        run(&format!(
            "{sa}---\n{}",
            with_sa("  serviceAccountName: a\n")
        )),
        (0, 0)
    );
    let sa_other_ns =
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n  namespace: default\n";
    assert_eq!(
        run(&format!(
            "{sa_other_ns}---\n{}",
            with_sa("  serviceAccountName: a\n")
        )),
        (0, 1)
    );
}

#[test]
fn mismatching_selector() {
    let n = |yaml: &str| hits(&lint_yaml(yaml), "mismatching-selector").len();
    let stub =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: loadgenerator\n$patch: delete\n";
    assert_eq!(n(stub), 1, "a Deployment without spec has no selector");
    let ok = deployment(
        "",
        "      containers:\n      - name: c\n        image: x:1\n",
    );
    assert_eq!(n(&ok), 0);
    assert_eq!(
        n(&ok.replace("      app: web\n  template", "      app: api\n  template")),
        1
    );
    let job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  ttlSecondsAfterFinished: 10\n  template:\n    spec: {}\n";
    assert_eq!(n(job), 0, "Jobs may omit the selector");
    let bad = ok.replace(
        "matchLabels:\n      app: web",
        "matchExpressions:\n    - key: app\n      operator: Equals\n      values: [web]",
    );
    assert_eq!(n(&bad), 1, "invalid operator");
}

#[test]
fn job_ttl_seconds_after_finished() {
    let n = |yaml: &str| hits(&lint_yaml(yaml), "job-ttl-seconds-after-finished").len();
    assert_eq!(
        n("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n"),
        1
    );
    assert_eq!(n("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  ttlSecondsAfterFinished: 0\n"), 0);
    assert_eq!(n("apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: c\nspec:\n  jobTemplate:\n    spec:\n      ttlSecondsAfterFinished: 5\n"), 1);
    assert_eq!(n("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: c\nspec:\n  jobTemplate:\n    spec:\n      ttlSecondsAfterFinished: 5\n"), 0);
}

#[test]
fn ignore_annotations_on_the_object_itself() {
    let base = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n{ann}spec:\n  containers:\n  - name: c\n    image: nginx\n";
    let lint_with = |ann: &str| lint_yaml(&base.replace("{ann}", ann));
    let all = lint_with("");
    assert!(!hits(&all, "latest-tag").is_empty());
    let one =
        lint_with("  annotations:\n    ignore-check.kube-linter.io/latest-tag: \"because\"\n");
    assert!(hits(&one, "latest-tag").is_empty());
    assert!(!hits(&one, "run-as-non-root").is_empty());
    let none = lint_with("  annotations:\n    kube-linter.io/ignore-all: \"\"\n");
    assert!(none.findings.is_empty());
    // The pod template's annotations do not count.
    let dep = deployment(
        "",
        "      containers:\n      - name: c\n        image: nginx\n",
    )
    .replace(
        "    metadata:\n      labels:",
        "    metadata:\n      annotations:\n        kube-linter.io/ignore-all: \"\"\n      labels:",
    );
    assert!(!hits(&lint_yaml(&dep), "latest-tag").is_empty());
}

#[test]
fn checks_can_be_enabled_individually() {
    let docs = parse_documents(
        &pod("  containers:\n  - name: c\n    image: nginx\n"),
        &Limits::default(),
    );
    let a = lint("m.yaml", &docs, &Enabled::only(["latest-tag"]));
    assert!(a
        .findings
        .iter()
        .all(|f| f.rule_id == "latest-tag" && f.file == "m.yaml"));
    assert_eq!(a.findings.len(), 1);
}
