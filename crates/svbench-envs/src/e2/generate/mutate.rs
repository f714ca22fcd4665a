//! Kubernetes mutation operators (spec E2 §8.3 table). Each operator edits a
//! baseline draft and returns the full ids it intends to cause, or `None`
//! when the draft has nothing it applies to.

use super::k8s::K8sDraft;
use super::rng::GenRng;
use super::yaml::{boolean, int, map, s, seq, Y};

/// A Kubernetes operator: name, whether it must be an item's only
/// mutation, and its edit.
#[derive(Debug)]
pub struct K8sOperator {
    /// Name recorded in `meta.generator.mutations`.
    pub name: &'static str,
    /// Applied alone (it changes what the other checks can see).
    pub solo: bool,
    /// The edit; `None` when not applicable to the draft.
    pub apply: fn(&mut K8sDraft, &mut GenRng) -> Option<Vec<String>>,
}

fn kl(rule: &str) -> String {
    format!("kube-linter/{rule}")
}

fn sg(rule: &str) -> String {
    format!("semgrep/yaml.kubernetes.security.{rule}.{rule}")
}

fn opa(rule: &str) -> String {
    format!("opa/{rule}")
}

/// Every Kubernetes operator, in table order.
pub const K8S_OPERATORS: &[K8sOperator] = &[
    K8sOperator {
        name: "image-mutable",
        solo: false,
        apply: image_mutable,
    },
    K8sOperator {
        name: "drop-nonroot",
        solo: false,
        apply: drop_nonroot,
    },
    K8sOperator {
        name: "writable-rootfs",
        solo: false,
        apply: writable_rootfs,
    },
    K8sOperator {
        name: "privileged",
        solo: false,
        apply: privileged,
    },
    K8sOperator {
        name: "allow-escalation-true",
        solo: false,
        apply: allow_escalation_true,
    },
    K8sOperator {
        name: "drop-escalation-key",
        solo: false,
        apply: drop_escalation_key,
    },
    K8sOperator {
        name: "add-sys-admin",
        solo: false,
        apply: add_sys_admin,
    },
    K8sOperator {
        name: "keep-net-raw",
        solo: false,
        apply: keep_net_raw,
    },
    K8sOperator {
        name: "host-namespace",
        solo: false,
        apply: host_namespace,
    },
    K8sOperator {
        name: "docker-socket",
        solo: false,
        apply: docker_socket,
    },
    K8sOperator {
        name: "sensitive-mount",
        solo: false,
        apply: sensitive_mount,
    },
    K8sOperator {
        name: "no-cpu-request",
        solo: false,
        apply: no_cpu_request,
    },
    K8sOperator {
        name: "no-memory-limit",
        solo: false,
        apply: no_memory_limit,
    },
    K8sOperator {
        name: "secret-env-literal",
        solo: false,
        apply: secret_env_literal,
    },
    K8sOperator {
        name: "missing-service-account",
        solo: false,
        apply: missing_service_account,
    },
    K8sOperator {
        name: "deprecated-sa-field",
        solo: false,
        apply: deprecated_sa_field,
    },
    K8sOperator {
        name: "service-selector-drift",
        solo: false,
        apply: service_selector_drift,
    },
    K8sOperator {
        name: "workload-selector-mismatch",
        solo: false,
        apply: workload_selector_mismatch,
    },
    K8sOperator {
        name: "remove-anti-affinity",
        solo: false,
        apply: remove_anti_affinity,
    },
    K8sOperator {
        name: "job-no-ttl",
        solo: false,
        apply: job_no_ttl,
    },
    K8sOperator {
        name: "legacy-extensions-api",
        solo: true,
        apply: legacy_extensions_api,
    },
    K8sOperator {
        name: "ssh-port",
        solo: false,
        apply: ssh_port,
    },
    K8sOperator {
        name: "unsafe-sysctl",
        solo: false,
        apply: unsafe_sysctl,
    },
    K8sOperator {
        name: "configmap-credential",
        solo: false,
        apply: configmap_credential,
    },
    K8sOperator {
        name: "default-namespace",
        solo: false,
        apply: default_namespace,
    },
];

fn container(d: &mut K8sDraft) -> &mut Y {
    d.containers_mut()
        .first_mut()
        .expect("every workload has a container")
}

fn container_sc(d: &mut K8sDraft) -> &mut Y {
    let c = container(d);
    if c.get("securityContext").is_none() {
        c.set("securityContext", Y::Map(Vec::new()));
    }
    c.get_mut("securityContext").expect("just set")
}

fn image_mutable(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let c = container(d);
    let image = c.get("image")?.as_str()?.to_string();
    let without_digest = image.split('@').next().unwrap_or_default();
    let repo = match without_digest.rfind(':') {
        Some(i) if !without_digest[i..].contains('/') => &without_digest[..i],
        _ => without_digest,
    };
    let mutated = if rng.chance(1, 2) {
        format!("{repo}:latest")
    } else {
        repo.to_string()
    };
    c.set("image", s(mutated));
    Some(vec![kl("latest-tag")])
}

fn drop_nonroot(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let spec = d.pod_spec_mut();
    if rng.chance(1, 2) {
        let sc = spec.get_mut("securityContext")?;
        sc.remove("runAsNonRoot")?;
        sc.remove("runAsUser");
        Some(vec![kl("run-as-non-root")])
    } else {
        spec.remove("securityContext")?;
        Some(vec![kl("run-as-non-root"), sg("run-as-non-root")])
    }
}

fn writable_rootfs(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let sc = container_sc(d);
    if rng.chance(1, 2) {
        sc.set("readOnlyRootFilesystem", boolean(false));
    } else {
        sc.remove("readOnlyRootFilesystem");
    }
    Some(vec![
        kl("no-read-only-root-fs"),
        sg("writable-filesystem-container"),
    ])
}

fn privileged(d: &mut K8sDraft, _rng: &mut GenRng) -> Option<Vec<String>> {
    let sc = container_sc(d);
    // Kubernetes rejects privileged containers that forbid escalation.
    sc.set("allowPrivilegeEscalation", boolean(true));
    sc.set("privileged", boolean(true));
    Some(vec![
        kl("privileged-container"),
        kl("privilege-escalation-container"),
        sg("privileged-container"),
        opa("K8S_002"),
    ])
}

fn allow_escalation_true(d: &mut K8sDraft, _rng: &mut GenRng) -> Option<Vec<String>> {
    container_sc(d).set("allowPrivilegeEscalation", boolean(true));
    Some(vec![kl("privilege-escalation-container")])
}

fn drop_escalation_key(d: &mut K8sDraft, _rng: &mut GenRng) -> Option<Vec<String>> {
    container_sc(d).remove("allowPrivilegeEscalation")?;
    Some(vec![sg("allow-privilege-escalation")])
}

fn add_sys_admin(d: &mut K8sDraft, _rng: &mut GenRng) -> Option<Vec<String>> {
    let sc = container_sc(d);
    if sc.get("capabilities").is_none() {
        sc.set("capabilities", Y::Map(Vec::new()));
    }
    let caps = sc.get_mut("capabilities")?;
    caps.set("add", seq(vec![s("SYS_ADMIN")]));
    Some(vec![kl("privilege-escalation-container"), opa("K8S_001")])
}

fn keep_net_raw(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let sc = container_sc(d);
    let caps = match rng.below(3) {
        0 => Y::Map(Vec::new()),
        1 => map([("drop", seq(vec![s("MKNOD"), s("SYS_CHROOT")]))]),
        _ => map([("drop", seq(vec![s("SETUID"), s("SETGID"), s("MKNOD")]))]),
    };
    sc.set("capabilities", caps);
    Some(vec![kl("drop-net-raw-capability")])
}

fn host_namespace(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let (key, kl_id, sg_id) = *rng.pick(&[
        ("hostNetwork", "host-network", "hostnetwork-pod"),
        ("hostPID", "host-pid", "hostpid-pod"),
        ("hostIPC", "host-ipc", "hostipc-pod"),
    ]);
    d.pod_spec_mut().set(key, boolean(true));
    Some(vec![kl(kl_id), sg(sg_id)])
}

fn add_host_mount(d: &mut K8sDraft, name: &str, path: &str, mount: &str, read_only: bool) {
    let mut host_path = map([("path", s(path))]);
    if path.ends_with(".sock") {
        host_path.set("type", s("Socket"));
    }
    let spec = d.pod_spec_mut();
    if spec.get("volumes").is_none() {
        spec.set("volumes", seq(Vec::new()));
    }
    if let Some(v) = spec.get_mut("volumes").and_then(Y::items_mut) {
        v.push(map([("name", s(name)), ("hostPath", host_path)]));
    }
    let c = container(d);
    if c.get("volumeMounts").is_none() {
        c.set("volumeMounts", seq(Vec::new()));
    }
    if let Some(m) = c.get_mut("volumeMounts").and_then(Y::items_mut) {
        let mut entry = map([("name", s(name)), ("mountPath", s(mount))]);
        if read_only {
            entry.set("readOnly", boolean(true));
        }
        m.push(entry);
    }
}

fn docker_socket(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let read_only = rng.chance(1, 2);
    add_host_mount(
        d,
        "docker-sock",
        "/var/run/docker.sock",
        "/var/run/docker.sock",
        read_only,
    );
    Some(vec![
        kl("docker-sock"),
        sg("exposing-docker-socket-hostpath"),
        opa("K8S_003"),
    ])
}

fn sensitive_mount(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let path = *rng.pick(&["/etc", "/proc", "/sys", "/dev", "/"]);
    let mount = if path == "/" {
        "/host".to_string()
    } else {
        format!("/host{path}")
    };
    add_host_mount(d, "host-fs", path, &mount, true);
    Some(vec![kl("sensitive-host-mounts"), opa("K8S_003")])
}

fn no_cpu_request(d: &mut K8sDraft, _rng: &mut GenRng) -> Option<Vec<String>> {
    container(d)
        .at_mut(&["resources", "requests"])?
        .remove("cpu")?;
    Some(vec![kl("unset-cpu-requirements")])
}

fn no_memory_limit(d: &mut K8sDraft, _rng: &mut GenRng) -> Option<Vec<String>> {
    container(d)
        .at_mut(&["resources", "limits"])?
        .remove("memory")?;
    Some(vec![kl("unset-memory-requirements"), opa("GEN_001")])
}

fn secret_env_literal(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let name = *rng.pick(&["DB_SECRET", "API_SECRET_KEY", "CLIENT_SECRET", "JWT_SECRET"]);
    let value = rng.hex(24);
    let c = container(d);
    if c.get("env").is_none() {
        c.set("env", seq(Vec::new()));
    }
    c.get_mut("env")
        .and_then(Y::items_mut)?
        .push(map([("name", s(name)), ("value", s(value))]));
    Some(vec![kl("env-var-secret")])
}

fn missing_service_account(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let name = format!(
        "{}-{}",
        d.app,
        rng.pick(&["runner", "deployer", "ci", "ops"])
    );
    d.pod_spec_mut().set("serviceAccountName", s(name));
    Some(vec![kl("non-existent-service-account")])
}

fn deprecated_sa_field(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let spec = d.pod_spec_mut();
    let current = spec.get("serviceAccountName")?.as_str()?.to_string();
    let other = format!("{current}-{}", rng.pick(&["legacy", "old", "v1"]));
    spec.set("serviceAccount", s(other));
    Some(vec![kl("deprecated-service-account-field")])
}

fn drifted(app: &str, rng: &mut GenRng) -> String {
    match rng.below(3) {
        0 => format!("{app}-v1"),
        1 => format!("{app}s"),
        _ => format!("{app}-app"),
    }
}

fn service_selector_drift(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let i = d.service?;
    let value = drifted(&d.app, rng);
    d.docs[i]
        .at_mut(&["spec", "selector"])?
        .set("app", s(value));
    Some(vec![kl("dangling-service")])
}

fn workload_selector_mismatch(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    if !["Deployment", "StatefulSet", "DaemonSet"].contains(&d.workload_kind()) {
        return None;
    }
    let value = drifted(&d.app, rng);
    let w = d.workload;
    d.docs[w]
        .at_mut(&["spec", "selector", "matchLabels"])?
        .set("app", s(value));
    Some(vec![kl("mismatching-selector")])
}

fn remove_anti_affinity(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    if d.replicas() < 2 {
        return None;
    }
    let spec = d.pod_spec_mut();
    if rng.chance(1, 2) {
        spec.remove("affinity")?;
    } else {
        // A term on the wrong topology key is not valid anti-affinity.
        let anti = spec.at_mut(&["affinity", "podAntiAffinity"])?;
        let term = match anti.get_mut("requiredDuringSchedulingIgnoredDuringExecution") {
            Some(list) => list.items_mut()?.first_mut()?,
            None => anti
                .get_mut("preferredDuringSchedulingIgnoredDuringExecution")?
                .items_mut()?
                .first_mut()?
                .get_mut("podAffinityTerm")?,
        };
        term.set("topologyKey", s("topology.kubernetes.io/zone"));
    }
    Some(vec![kl("no-anti-affinity")])
}

fn job_no_ttl(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let w = d.workload;
    match d.workload_kind() {
        "Job" => {
            d.docs[w]
                .get_mut("spec")?
                .remove("ttlSecondsAfterFinished")?;
        }
        "CronJob" => {
            let spec = d.docs[w].at_mut(&["spec", "jobTemplate", "spec"])?;
            if let Y::Map(pairs) = spec {
                let ttl = *rng.pick(&[300u64, 600, 3600]);
                pairs.insert(0, ("ttlSecondsAfterFinished".to_string(), int(ttl)));
            }
        }
        _ => return None,
    }
    Some(vec![kl("job-ttl-seconds-after-finished")])
}

fn legacy_extensions_api(d: &mut K8sDraft, _rng: &mut GenRng) -> Option<Vec<String>> {
    if !["Deployment", "DaemonSet"].contains(&d.workload_kind()) {
        return None;
    }
    let w = d.workload;
    d.docs[w].set("apiVersion", s("extensions/v1beta1"));
    Some(vec![kl("no-extensions-v1beta")])
}

fn ssh_port(d: &mut K8sDraft, _rng: &mut GenRng) -> Option<Vec<String>> {
    let i = d.service?;
    d.docs[i]
        .at_mut(&["spec", "ports"])?
        .items_mut()?
        .push(map([
            ("name", s("ssh")),
            ("port", int(22)),
            ("targetPort", int(22)),
            ("protocol", s("TCP")),
        ]));
    container(d).get_mut("ports")?.items_mut()?.push(map([
        ("name", s("ssh")),
        ("containerPort", int(22)),
        ("protocol", s("TCP")),
    ]));
    Some(vec![kl("ssh-port"), opa("K8S_004")])
}

fn unsafe_sysctl(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let (name, value) = *rng.pick(&[
        ("net.core.somaxconn", "1024"),
        ("kernel.shm_rmid_forced", "1"),
        ("net.ipv4.ip_unprivileged_port_start", "0"),
        ("kernel.msgmax", "65536"),
    ]);
    let sc = d.pod_spec_mut().get_mut("securityContext")?;
    sc.set(
        "sysctls",
        seq(vec![map([("name", s(name)), ("value", s(value))])]),
    );
    Some(vec![kl("unsafe-sysctls")])
}

fn configmap_credential(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let i = d.configmap?;
    let data = d.docs[i].get_mut("data")?;
    if rng.chance(1, 4) {
        let body = rng.hex(48);
        data.set(
            "tls-key.pem",
            s(format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
            )),
        );
    } else {
        let key = *rng.pick(&["DB_PASSWORD", "api_key", "AUTH_TOKEN", "smtp-password"]);
        data.set(key, s(rng.hex(20)));
    }
    Some(vec![opa("K8S_005")])
}

fn default_namespace(d: &mut K8sDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let i = rng.below(d.docs.len() as u64) as usize;
    let meta = d.docs[i].get_mut("metadata")?;
    if rng.chance(1, 2) {
        meta.set("namespace", s("default"));
    } else {
        meta.remove("namespace")?;
    }
    Some(vec![opa("GEN_002")])
}
