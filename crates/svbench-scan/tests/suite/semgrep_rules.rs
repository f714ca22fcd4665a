//! Each native semgrep rule of spec E2 §1.6: when it fires, when it does not,
//! and the line it reports.

use svbench_scan::{parse_documents, semgrep, Enabled, Limits};

/// No lines.
const NONE: Vec<usize> = Vec::new();

/// `(short rule name, line)` of every semgrep finding on `yaml`, sorted.
fn hits(yaml: &str) -> Vec<(String, usize)> {
    let docs = parse_documents(yaml, &Limits::default());
    let analysis = semgrep::scan(
        "manifest.yaml",
        yaml,
        &docs,
        &Enabled::defaults(semgrep::catalogue()),
    );
    assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
    let mut hits: Vec<_> = analysis
        .findings
        .iter()
        .map(|f| {
            let short = f.rule_id.rsplit('.').next().unwrap_or_default().to_owned();
            (short, f.line.expect("semgrep findings have lines"))
        })
        .collect();
    hits.sort();
    hits
}

/// The lines at which rule `short` fired.
fn lines_of(yaml: &str, short: &str) -> Vec<usize> {
    hits(yaml)
        .into_iter()
        .filter(|(r, _)| r == short)
        .map(|(_, l)| l)
        .collect()
}

const HARDENED_POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: ok
spec:
  securityContext:
    runAsNonRoot: true
  containers:
  - name: web
    image: nginx:1.25
    securityContext:
      readOnlyRootFilesystem: true
      allowPrivilegeEscalation: false
";

#[test]
fn hardened_pod_has_no_findings() {
    assert_eq!(hits(HARDENED_POD), vec![]);
}

#[test]
fn catalogue_lists_the_eight_rules_sorted() {
    let ids: Vec<_> = semgrep::catalogue().iter().map(|r| r.id).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids, sorted);
    assert_eq!(ids.len(), 8);
    for id in ids {
        let (_, tail) = id
            .strip_prefix("yaml.kubernetes.security.")
            .and_then(|rest| rest.split_once('.'))
            .expect("registry id shape");
        assert!(id.ends_with(&format!("{tail}.{tail}")), "{id}");
    }
}

// --- writable-filesystem-container --------------------------------------

#[test]
fn writable_filesystem_reports_the_name_value_line() {
    let yaml = "\
spec:
  containers:
  - image: nginx
    name:
      web
";
    assert_eq!(lines_of(yaml, "writable-filesystem-container"), vec![5]);
}

#[test]
fn writable_filesystem_needs_name_and_image_and_a_true_read_only_root() {
    let no_name = "spec:\n  containers:\n  - image: nginx\n";
    assert_eq!(lines_of(no_name, "writable-filesystem-container"), NONE);
    let no_image = "spec:\n  containers:\n  - name: web\n";
    assert_eq!(lines_of(no_image, "writable-filesystem-container"), NONE);
    let explicit_false = "spec:\n  containers:\n  - name: web\n    image: nginx\n    securityContext:\n      readOnlyRootFilesystem: false\n";
    assert_eq!(
        lines_of(explicit_false, "writable-filesystem-container"),
        vec![3]
    );
    let quoted_true = "spec:\n  containers:\n  - name: web\n    image: nginx\n    securityContext:\n      readOnlyRootFilesystem: \"true\"\n";
    assert_eq!(
        lines_of(quoted_true, "writable-filesystem-container"),
        vec![3]
    );
    let read_only = "spec:\n  containers:\n  - name: web\n    image: nginx\n    securityContext:\n      readOnlyRootFilesystem: true\n";
    assert_eq!(lines_of(read_only, "writable-filesystem-container"), NONE);
}

#[test]
fn container_items_are_found_anywhere_without_kinds() {
    let yaml = "\
kind: Whatever
deeply:
  nested:
    containers:
    - name: a
      image: x
    - name: b
      image: y
      securityContext:
        readOnlyRootFilesystem: true
    - just-a-scalar
";
    assert_eq!(lines_of(yaml, "writable-filesystem-container"), vec![5]);
}

#[test]
fn init_and_ephemeral_containers_are_not_container_items() {
    let yaml = "\
spec:
  securityContext: {}
  initContainers:
  - name: init
    image: busybox
    securityContext:
      privileged: true
  ephemeralContainers:
  - name: debug
    image: busybox
  containers:
  - name: web
    image: nginx
";
    assert_eq!(
        hits(yaml),
        vec![("writable-filesystem-container".into(), 12)]
    );
}

// --- run-as-non-root ----------------------------------------------------

#[test]
fn run_as_non_root_reports_the_spec_key_holding_containers() {
    let yaml = "\
kind: Deployment
spec:
  template:
    spec:
      containers:
      - name: web
        image: nginx
";
    assert_eq!(lines_of(yaml, "run-as-non-root"), vec![4]);
}

#[test]
fn run_as_non_root_is_silenced_by_any_pod_security_context() {
    let yaml = "spec:\n  securityContext:\n    fsGroup: 2000\n  containers:\n  - name: web\n    image: nginx\n";
    assert_eq!(lines_of(yaml, "run-as-non-root"), NONE);
    let null_context = "spec:\n  securityContext:\n  containers: []\n";
    assert_eq!(lines_of(null_context, "run-as-non-root"), NONE);
}

#[test]
fn run_as_non_root_is_silenced_by_any_container_setting_it_even_false() {
    let yaml = "\
spec:
  containers:
  - name: a
    image: x
  - name: b
    image: y
    securityContext:
      runAsNonRoot: false
";
    assert_eq!(lines_of(yaml, "run-as-non-root"), NONE);
}

#[test]
fn run_as_non_root_counts_only_containers_with_name_and_image() {
    let yaml = "\
spec:
  containers:
  - image: y
    securityContext:
      runAsNonRoot: true
";
    assert_eq!(lines_of(yaml, "run-as-non-root"), vec![1]);
    let init_only = "spec:\n  initContainers:\n  - name: i\n    image: x\n";
    assert_eq!(lines_of(init_only, "run-as-non-root"), NONE);
    let not_spec = "template:\n  containers:\n  - name: a\n    image: x\n";
    assert_eq!(lines_of(not_spec, "run-as-non-root"), NONE);
}

// --- allow-privilege-escalation -----------------------------------------

#[test]
fn allow_privilege_escalation_reports_the_security_context_key() {
    let yaml = "\
spec:
  securityContext: {}
  containers:
  - name: web
    image: nginx
    securityContext:
      readOnlyRootFilesystem: true
";
    assert_eq!(lines_of(yaml, "allow-privilege-escalation"), vec![6]);
}

#[test]
fn allow_privilege_escalation_needs_a_security_context_lacking_the_key() {
    let without = "spec:\n  containers:\n  - name: web\n    image: nginx\n";
    assert_eq!(lines_of(without, "allow-privilege-escalation"), NONE);
    let set_true = "spec:\n  containers:\n  - name: web\n    image: nginx\n    securityContext:\n      allowPrivilegeEscalation: true\n";
    assert_eq!(lines_of(set_true, "allow-privilege-escalation"), NONE);
    let empty = "spec:\n  containers:\n  - name: web\n    image: nginx\n    securityContext: {}\n";
    assert_eq!(lines_of(empty, "allow-privilege-escalation"), vec![5]);
    let no_name = "spec:\n  containers:\n  - image: nginx\n    securityContext: {}\n";
    assert_eq!(lines_of(no_name, "allow-privilege-escalation"), NONE);
}

// --- privileged-container -----------------------------------------------

#[test]
fn privileged_container_reports_the_item_first_line() {
    let yaml = "\
spec:
  securityContext: {}
  containers:
    # a comment before the item
    - resources: {}
      securityContext:
        privileged: true
      image: agent
";
    assert_eq!(lines_of(yaml, "privileged-container"), vec![5]);
}

#[test]
fn privileged_container_needs_true_and_an_image() {
    let not_true =
        "spec:\n  containers:\n  - image: x\n    securityContext:\n      privileged: false\n";
    assert_eq!(lines_of(not_true, "privileged-container"), NONE);
    let init =
        "spec:\n  initContainers:\n  - image: x\n    securityContext:\n      privileged: true\n";
    assert_eq!(lines_of(init, "privileged-container"), NONE);
}

#[test]
fn privileged_in_a_pod_security_policy_reports_the_key() {
    let yaml = "\
apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata:
  name: privileged
spec:
  privileged: true
  allowPrivilegeEscalation: true
";
    assert_eq!(hits(yaml), vec![("privileged-container".into(), 6)]);
    let outside_spec = "kind: X\nprivileged: true\n";
    assert_eq!(hits(outside_spec), vec![]);
}

#[test]
fn privileged_without_image_in_a_container_item_is_case_b() {
    let yaml = "\
spec:
  securityContext: {}
  containers:
  - name: no-image
    securityContext:
      privileged: true
";
    assert_eq!(lines_of(yaml, "privileged-container"), vec![6]);
}

// --- host namespaces ----------------------------------------------------

#[test]
fn host_namespaces_report_their_key_below_spec() {
    let yaml = "\
spec:
  template:
    spec:
      hostNetwork: true
      hostPID: yes
      hostIPC:
        true
";
    assert_eq!(
        hits(yaml),
        vec![
            ("hostipc-pod".into(), 6),
            ("hostnetwork-pod".into(), 4),
            ("hostpid-pod".into(), 5),
        ]
    );
}

#[test]
fn host_namespaces_need_true_and_a_spec_ancestor() {
    let yaml = "spec:\n  hostNetwork: false\n  hostPID: \"true\"\nhostIPC: true\n";
    assert_eq!(hits(yaml), vec![]);
}

// --- exposing-docker-socket-hostpath ------------------------------------

#[test]
fn docker_socket_reports_the_host_path_key_below_volumes() {
    let yaml = "\
spec:
  securityContext: {}
  volumes:
  - name: sock
    hostPath:
      path: /var/run/docker.sock
      type: Socket
  - name: other
    hostPath:
      path: /var/run
";
    assert_eq!(
        hits(yaml),
        vec![("exposing-docker-socket-hostpath".into(), 5)]
    );
}

#[test]
fn docker_socket_elsewhere_does_not_fire() {
    let mount_only = "\
spec:
  securityContext: {}
  containers:
  - name: web
    image: x
    securityContext:
      readOnlyRootFilesystem: true
      allowPrivilegeEscalation: false
    volumeMounts:
    - mountPath: /var/run/docker.sock
      name: sock
";
    assert_eq!(hits(mount_only), vec![]);
    let not_volumes = "hostPath:\n  path: /var/run/docker.sock\n";
    assert_eq!(hits(not_volumes), vec![]);
}
