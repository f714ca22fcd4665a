//! Each next-tier check (default-enabled; spec E2 §1.5): fires, does not
//! fire, multiplicity and the edge cases of its table row.

use svbench_scan::kube_linter::{catalogue, lint};
use svbench_scan::{parse_documents, Analysis, Enabled, Finding, Limits, Severity};

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

/// How many findings `rule` has on `yaml`.
fn count(yaml: &str, rule: &str) -> usize {
    hits(&lint_yaml(yaml), rule).len()
}

/// Containers named by the findings of `rule`, in order.
fn containers(a: &Analysis, rule: &str) -> Vec<String> {
    hits(a, rule)
        .iter()
        .map(|f| f.container.clone().unwrap_or_default())
        .collect()
}

/// Lines of the findings of `rule`, in order.
fn lines(a: &Analysis, rule: &str) -> Vec<usize> {
    hits(a, rule).iter().filter_map(|f| f.line).collect()
}

/// A Pod with the given pod-spec body (indented by 2 under `spec:`).
fn pod(spec: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n{spec}")
}

/// A Pod with one container `c` whose extra fields are `ctr` (indented by 4).
fn pod_ctr(ctr: &str) -> String {
    pod(&format!(
        "  containers:\n  - name: c\n    image: x:1\n{ctr}"
    ))
}

/// Errors of linting `yaml` (decode failures).
fn errors(yaml: &str) -> usize {
    let docs = parse_documents(yaml, &Limits::default());
    lint("m.yaml", &docs, &Enabled::defaults(catalogue()))
        .errors
        .len()
}

#[test]
fn next_checks_are_default_enabled_with_their_severities() {
    let a = lint_yaml(&pod(
        "  hostIPC: true\n  containers:\n  - name: c\n    image: x:1\n    ports:\n    - containerPort: 22\n",
    ));
    assert_eq!(hits(&a, "host-ipc")[0].severity, Severity::High);
    assert_eq!(hits(&a, "ssh-port")[0].severity, Severity::Med);
}

#[test]
fn host_ipc_one_per_deployment_like_object() {
    assert_eq!(count(&pod("  hostIPC: true\n"), "host-ipc"), 1);
    assert_eq!(count(&pod("  hostIPC: false\n"), "host-ipc"), 0);
    assert_eq!(count(&pod("  hostPID: true\n"), "host-ipc"), 0);
    let dep = |api: &str| {
        format!("apiVersion: {api}\nkind: DaemonSet\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      hostIPC: true\n")
    };
    assert_eq!(count(&dep("apps/v1"), "host-ipc"), 1);
    assert_eq!(
        count(&dep("extensions/v1beta1"), "host-ipc"),
        0,
        "extensions workloads are not deployment-like"
    );
}

#[test]
fn ssh_port_per_container_and_tcp_port_22() {
    let a = lint_yaml(&pod(
        "  initContainers:\n  - name: init\n    image: x:1\n    ports:\n    - containerPort: 22\n  containers:\n  - name: c\n    image: x:1\n    ports:\n    - containerPort: 22\n      protocol: TCP\n    - containerPort: 22\n      protocol: UDP\n    - containerPort: 2222\n",
    ));
    assert_eq!(containers(&a, "ssh-port"), ["init", "c"]);
    assert_eq!(lines(&a, "ssh-port"), [10, 15], "the port's line");
    assert!(hits(&a, "ssh-port")[1].message.contains("container \"c\""));
}

#[test]
fn unsafe_sysctls_per_sysctl_matching_a_prefix() {
    let with = |names: &[&str]| {
        let items: String = names
            .iter()
            .map(|n| format!("    - name: {n}\n      value: \"1\"\n"))
            .collect();
        pod(&format!("  securityContext:\n    sysctls:\n{items}"))
    };
    let a = lint_yaml(&with(&[
        "kernel.shm_rmid_forced",
        "net.core.somaxconn",
        "kernel.domainname",
        "fs.mqueue.msg_max",
        "fs.mqueue",
        "kernel.msgmax",
        "kernel.sem",
    ]));
    assert_eq!(hits(&a, "unsafe-sysctls").len(), 5);
    assert_eq!(lines(&a, "unsafe-sysctls")[0], 8, "the sysctl's line");
    assert!(hits(&a, "unsafe-sysctls")[0].container.is_none());
    assert_eq!(count(&with(&["vm.swappiness"]), "unsafe-sysctls"), 0);
    assert_eq!(
        errors(&pod("  securityContext:\n    sysctls:\n    - name: 5\n")),
        1,
        "sysctl names are type-checked"
    );
}

#[test]
fn duplicate_env_var_once_per_repeated_name() {
    let env = |names: &[&str]| -> String {
        names
            .iter()
            .map(|n| format!("    - name: {n}\n      value: v\n"))
            .collect()
    };
    let a = lint_yaml(&pod(&format!(
        "  initContainers:\n  - name: init\n    image: x:1\n    env:\n{}  containers:\n  - name: c\n    image: x:1\n    env:\n{}",
        env(&["A", "A"]),
        env(&["A", "B", "A", "A", "B", "C"])
    )));
    assert_eq!(containers(&a, "duplicate-env-var"), ["init", "c", "c"]);
    let msgs: Vec<&str> = hits(&a, "duplicate-env-var")
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert!(msgs[1].contains("\"A\" 3 times"), "{}", msgs[1]);
    assert!(msgs[2].contains("\"B\" 2 times"), "{}", msgs[2]);
    // Reported at the first repeat: init's second A.
    assert_eq!(lines(&a, "duplicate-env-var")[0], 12);
    assert_eq!(
        count(
            &pod_ctr(&format!("    env:\n{}", env(&["A", "B"]))),
            "duplicate-env-var"
        ),
        0
    );
}

#[test]
fn invalid_target_ports_container_port_names() {
    let names = |names: &[&str]| {
        let ports: String = names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("    - containerPort: {}\n      name: \"{n}\"\n", 1000 + i))
            .collect();
        count(
            &pod_ctr(&format!("    ports:\n{ports}")),
            "invalid-target-ports",
        )
    };
    assert_eq!(names(&["http", "grpc-web", "h2c", "a1"]), 0);
    assert_eq!(names(&["HTTP"]), 1, "uppercase");
    assert_eq!(names(&["8080"]), 1, "no letter");
    assert_eq!(names(&["a--b"]), 1, "double hyphen");
    assert_eq!(names(&["-ab"]), 1);
    assert_eq!(names(&["ab-"]), 1);
    assert_eq!(names(&["averyverylongname"]), 1, "more than 15 characters");
    assert_eq!(names(&["a_b"]), 1);
    assert_eq!(names(&["HTTP", "x", "8080"]), 2, "one per port");
    // An empty name is not checked.
    assert_eq!(
        count(
            &pod_ctr("    ports:\n    - containerPort: 80\n"),
            "invalid-target-ports"
        ),
        0
    );
}

#[test]
fn invalid_target_ports_service_target_ports() {
    let svc = |api: &str, target: &str| {
        format!("apiVersion: {api}\nkind: Service\nmetadata:\n  name: s\nspec:\n  selector:\n    app: x\n  ports:\n  - name: web\n    port: 80\n{target}")
    };
    let n = |target: &str| count(&svc("v1", target), "invalid-target-ports");
    assert_eq!(n(""), 0, "absent");
    assert_eq!(n("    targetPort: 0\n"), 0, "0 is the default");
    assert_eq!(n("    targetPort: 8080\n"), 0);
    assert_eq!(n("    targetPort: http\n"), 0);
    assert_eq!(n("    targetPort: Http\n"), 1);
    assert_eq!(
        n("    targetPort: \"8080\"\n"),
        1,
        "a string must be a name"
    );
    assert_eq!(n("    targetPort: 70000\n"), 1);
    assert_eq!(n("    targetPort: -1\n"), 1);
    let a = lint_yaml(&svc("v1", "    targetPort: 70000\n"));
    assert_eq!(
        lines(&a, "invalid-target-ports"),
        [9],
        "the service port's line"
    );
    assert!(hits(&a, "invalid-target-ports")[0].container.is_none());
}

/// A pod whose container `c` has `ports` and a liveness probe `probe`
/// (both indented by 4 under the container).
fn probed(ports: &str, probe: &str) -> String {
    pod_ctr(&format!("{ports}    livenessProbe:\n{probe}"))
}

#[test]
fn liveness_port_by_number_and_name() {
    let ports = "    ports:\n    - containerPort: 8080\n      name: http\n";
    let http = |port: &str| format!("      httpGet:\n        path: /\n        port: {port}\n");
    let n = |ports: &str, probe: &str| count(&probed(ports, probe), "liveness-port");
    assert_eq!(n(ports, &http("8080")), 0);
    assert_eq!(n(ports, &http("http")), 0);
    assert_eq!(n(ports, &http("9090")), 1);
    assert_eq!(n(ports, &http("metrics")), 1);
    assert_eq!(n(ports, &http("\"8080\"")), 1, "a string port is a name");
    assert_eq!(n("", &http("8080")), 1, "no ports at all");
    assert_eq!(
        n(
            "    ports:\n    - containerPort: 8080\n      protocol: UDP\n",
            &http("8080")
        ),
        1,
        "UDP ports do not count"
    );
    assert_eq!(
        n(
            "    ports:\n    - containerPort: 8080\n      protocol: TCP\n",
            &http("8080")
        ),
        0
    );
    let tcp = "      tcpSocket:\n        port: http\n";
    assert_eq!(n(ports, tcp), 0);
    assert_eq!(n("    ports:\n    - containerPort: 8080\n", tcp), 1);
    let grpc = |p: &str| format!("      grpc:\n        port: {p}\n");
    assert_eq!(n(ports, &grpc("8080")), 0);
    assert_eq!(n(ports, &grpc("9090")), 1);
    assert_eq!(n(ports, "      exec:\n        command: [true]\n"), 0);
    // At most one per container even with several bad handlers.
    assert_eq!(n("", &format!("{}{tcp}", http("1"))), 1);
    let a = lint_yaml(&probed(ports, &http("9090")));
    let f = hits(&a, "liveness-port")[0];
    assert_eq!(f.container.as_deref(), Some("c"));
    assert_eq!(f.line, Some(14), "the handler's line (its first key)");
    assert!(f.message.contains("container \"c\""), "{}", f.message);
}

#[test]
fn probe_ports_only_regular_containers_and_each_probe_its_own_check() {
    let probe = |kind: &str| format!("    {kind}:\n      tcpSocket:\n        port: 81\n");
    let a = lint_yaml(&pod(&format!(
        "  initContainers:\n  - name: init\n    image: x:1\n{}  containers:\n  - name: a\n    image: x:1\n{}{}  - name: b\n    image: x:1\n{}  ephemeralContainers:\n  - name: e\n    image: x:1\n{}",
        probe("livenessProbe"),
        probe("readinessProbe"),
        probe("startupProbe"),
        probe("livenessProbe"),
        probe("livenessProbe"),
    )));
    assert_eq!(containers(&a, "liveness-port"), ["b"]);
    assert_eq!(containers(&a, "readiness-port"), ["a"]);
    assert_eq!(containers(&a, "startup-port"), ["a"]);
    assert_eq!(
        errors(&probed("", "      httpGet:\n        port: true\n")),
        1
    );
}

fn pdb(api: &str, spec: &str) -> String {
    format!("apiVersion: {api}\nkind: PodDisruptionBudget\nmetadata:\n  name: b\nspec:\n{spec}")
}

#[test]
fn pdb_max_unavailable_resolving_to_zero_or_invalid() {
    let n = |v: &str| {
        count(
            &pdb("policy/v1", &format!("  maxUnavailable: {v}\n")),
            "pdb-max-unavailable",
        )
    };
    assert_eq!(n("0"), 1);
    assert_eq!(n("\"0%\""), 1);
    assert_eq!(n("1"), 0);
    assert_eq!(n("\"1%\""), 0, "a percentage of 100, so 1");
    assert_eq!(n("\"50%\""), 0);
    assert_eq!(n("-1"), 0, "negative is not zero");
    assert_eq!(n("abc"), 1, "invalid");
    assert_eq!(n("\"5\""), 1, "a string must be a percentage");
    assert_eq!(n("\"1.5%\""), 1);
    assert_eq!(
        count(
            &pdb("policy/v1", "  minAvailable: 1\n"),
            "pdb-max-unavailable"
        ),
        0
    );
    assert_eq!(
        count(
            &pdb("policy/v1beta1", "  maxUnavailable: 0\n"),
            "pdb-max-unavailable"
        ),
        0,
        "only policy/v1"
    );
    assert_eq!(errors(&pdb("policy/v1", "  maxUnavailable: 1.5\n")), 1);
}

#[test]
fn pdb_unhealthy_pod_eviction_policy() {
    let n = |api: &str, spec: &str| count(&pdb(api, spec), "pdb-unhealthy-pod-eviction-policy");
    assert_eq!(n("policy/v1", "  minAvailable: 1\n"), 1);
    assert_eq!(
        n("policy/v1", "  unhealthyPodEvictionPolicy: AlwaysAllow\n"),
        0
    );
    assert_eq!(
        n("policy/v1", "  unhealthyPodEvictionPolicy: \"\"\n"),
        0,
        "set, even empty"
    );
    assert_eq!(n("policy/v1", "  unhealthyPodEvictionPolicy: null\n"), 1);
    assert_eq!(n("policy/v1beta1", "  minAvailable: 1\n"), 0);
}

/// A Deployment `name` with `replicas` (empty = absent), selector
/// `app: <app>` (+ `tier: back`), template labels `app: <app>`.
fn workload(name: &str, app: &str, replicas: &str, namespace: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n{namespace}spec:\n{replicas}  selector:\n    matchLabels:\n      app: {app}\n      tier: back\n  template:\n    metadata:\n      labels:\n        app: {app}\n        tier: back\n    spec:\n      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - topologyKey: kubernetes.io/hostname\n            labelSelector:\n              matchLabels:\n                app: {app}\n"
    )
}

/// A `policy/v1` PDB selecting `app: <app>` with `minAvailable`.
fn min_pdb(min: &str, app: &str) -> String {
    pdb(
        "policy/v1",
        &format!("  minAvailable: {min}\n  selector:\n    matchLabels:\n      app: {app}\n"),
    )
}

fn min_available(docs: &[String]) -> usize {
    count(&docs.join("---\n"), "pdb-min-available")
}

#[test]
fn pdb_min_available_against_replicas() {
    let web3 = workload("web", "web", "  replicas: 3\n", "");
    assert_eq!(min_available(&[web3.clone(), min_pdb("3", "web")]), 1);
    assert_eq!(min_available(&[web3.clone(), min_pdb("4", "web")]), 1);
    assert_eq!(min_available(&[web3.clone(), min_pdb("2", "web")]), 0);
    // Percentages of the replicas, rounded up: 67% of 3 → 3, 66% of 3 → 2.
    assert_eq!(min_available(&[web3.clone(), min_pdb("\"67%\"", "web")]), 1);
    assert_eq!(min_available(&[web3.clone(), min_pdb("\"66%\"", "web")]), 0);
    // Selector not matching, other namespace.
    assert_eq!(min_available(&[web3.clone(), min_pdb("3", "db")]), 0);
    let other_ns = workload("web", "web", "  replicas: 3\n", "  namespace: prod\n");
    assert_eq!(min_available(&[other_ns, min_pdb("3", "web")]), 0);
    // One finding per matching workload.
    let two = [
        web3.clone(),
        workload("web2", "web", "  replicas: 2\n", ""),
        min_pdb("2", "web"),
    ];
    assert_eq!(min_available(&two), 1, "3 replicas > 2, 2 replicas ≤ 2");
    let both = [
        web3,
        workload("web2", "web", "  replicas: 1\n", ""),
        min_pdb("3", "web"),
    ];
    assert_eq!(min_available(&both), 2);
}

#[test]
fn pdb_min_available_100_percent_and_invalid_fire_alone() {
    assert_eq!(min_available(&[min_pdb("\"100%\"", "web")]), 1);
    assert_eq!(min_available(&[min_pdb("abc", "web")]), 1);
    assert_eq!(min_available(&[min_pdb("\"50\"", "web")]), 1);
    // 100% with a matching workload: still one.
    let web = workload("web", "web", "  replicas: 3\n", "");
    assert_eq!(min_available(&[web, min_pdb("\"100%\"", "web")]), 1);
    // Without a selector (kube-linter 0.7.6 crashes): nothing.
    let no_sel = pdb("policy/v1", "  minAvailable: 5\n");
    assert_eq!(min_available(&[workload("web", "web", "", ""), no_sel]), 0);
    // An invalid selector is the check's own finding.
    let bad_sel = pdb(
        "policy/v1",
        "  minAvailable: 1\n  selector:\n    matchLabels:\n      app: \"-bad-\"\n",
    );
    assert_eq!(min_available(&[bad_sel]), 1);
    assert_eq!(
        count(
            &pdb("policy/v1beta1", "  minAvailable: \"100%\"\n"),
            "pdb-min-available"
        ),
        0
    );
}

#[test]
fn pdb_min_available_reads_the_workload_selector_match_labels() {
    // The PDB selects on `tier`, which only the workload's selector and
    // template carry; a Deployment whose selector lacks matchLabels
    // (expressions only) offers an empty label set.
    let web = workload("web", "web", "  replicas: 2\n", "");
    let tier_pdb = pdb(
        "policy/v1",
        "  minAvailable: 2\n  selector:\n    matchLabels:\n      tier: back\n",
    );
    assert_eq!(min_available(&[web, tier_pdb.clone()]), 1);
    let exprs = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: e\nspec:\n  replicas: 2\n  selector:\n    matchExpressions:\n    - key: tier\n      operator: In\n      values: [back]\n  template:\n    metadata:\n      labels:\n        tier: back\n";
    assert_eq!(min_available(&[exprs.to_owned(), tier_pdb]), 0);
    // DaemonSets have no replicas: skipped.
    let ds = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: ds\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n";
    assert_eq!(min_available(&[ds.to_owned(), min_pdb("5", "web")]), 0);
}

#[test]
fn pdb_min_available_uses_the_autoscaler_minimum_when_replicas_is_one() {
    let web1 = workload("web", "web", "", "");
    let hpa = |min: &str, ns: &str, target: &str| {
        format!("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n{ns}spec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: {target}\n{min}  maxReplicas: 10\n")
    };
    // No autoscaler: 1 replica ≤ minAvailable 1.
    assert_eq!(min_available(&[web1.clone(), min_pdb("1", "web")]), 1);
    // An HPA with minReplicas 3 targeting it by name: 3 > 1.
    assert_eq!(
        min_available(&[
            web1.clone(),
            hpa("  minReplicas: 3\n", "", "web"),
            min_pdb("1", "web")
        ]),
        0
    );
    assert_eq!(
        min_available(&[
            web1.clone(),
            hpa("  minReplicas: 3\n", "", "web"),
            min_pdb("3", "web")
        ]),
        1
    );
    // Absent minReplicas → 1; another namespace or name does not count.
    assert_eq!(
        min_available(&[web1.clone(), hpa("", "", "web"), min_pdb("1", "web")]),
        1
    );
    assert_eq!(
        min_available(&[
            web1.clone(),
            hpa("  minReplicas: 3\n", "  namespace: prod\n", "web"),
            min_pdb("1", "web")
        ]),
        1
    );
    assert_eq!(
        min_available(&[
            web1.clone(),
            hpa("  minReplicas: 3\n", "", "api"),
            min_pdb("1", "web")
        ]),
        1
    );
    // The autoscaler is not consulted when replicas is above 1.
    let web2 = workload("web", "web", "  replicas: 2\n", "");
    assert_eq!(
        min_available(&[
            web2,
            hpa("  minReplicas: 5\n", "", "web"),
            min_pdb("2", "web")
        ]),
        1
    );
    // A KEDA ScaledObject counts too.
    let keda = "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: k\nspec:\n  scaleTargetRef:\n    name: web\n  minReplicaCount: 4\n";
    assert_eq!(
        min_available(&[web1, keda.to_owned(), min_pdb("2", "web")]),
        0
    );
}

#[test]
fn pdb_findings_are_on_the_pdb() {
    let a = lint_yaml(
        &[
            workload("web", "web", "  replicas: 2\n", ""),
            min_pdb("2", "web"),
        ]
        .join("---\n"),
    );
    let f = hits(&a, "pdb-min-available")[0];
    assert_eq!(f.doc_index, Some(1));
    assert!(f.container.is_none());
    assert!(f.message.contains("Deployment \"web\""), "{}", f.message);
}
