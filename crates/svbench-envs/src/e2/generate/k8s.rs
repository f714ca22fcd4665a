//! Secure Kubernetes baselines (spec E2 §8.3): every family scans clean under
//! every default kube-linter check, the semgrep rules and all opa rules.
//!
//! Shared hardening: explicit non-default namespace, pinned images, pod
//! `runAsNonRoot` with `runAsUser` ≥ 10000, read-only root filesystem, no
//! privilege escalation, all capabilities dropped, CPU/memory requests and
//! limits, probes on exposed ports, an in-file service account and
//! hostname anti-affinity when replicas ≥ 2.

use super::rng::GenRng;
use super::yaml::{boolean, int, map, s, seq, Style, Y};

/// Baseline families, in catalogue order.
pub const FAMILIES: [&str; 8] = [
    "deploy-svc",
    "statefulset",
    "daemonset",
    "job",
    "cronjob",
    "pod",
    "rbac",
    "config-secret",
];

const APPS: [&str; 24] = [
    "web",
    "api",
    "billing",
    "orders",
    "catalog",
    "auth",
    "search",
    "inventory",
    "payments",
    "gateway",
    "notifier",
    "reports",
    "ledger",
    "profile",
    "checkout",
    "metrics",
    "worker",
    "scheduler",
    "cache",
    "frontend",
    "shipping",
    "pricing",
    "mailer",
    "audit",
];
const SUFFIXES: [&str; 6] = ["", "-svc", "-v2", "-core", "-edge", "-backend"];
const NAMESPACES: [&str; 12] = [
    "shop",
    "payments",
    "platform",
    "data",
    "analytics",
    "tools",
    "team-a",
    "backend",
    "edge",
    "observability",
    "identity",
    "batch",
];
const ENVS: [&str; 4] = ["", "-prod", "-staging", "-dev"];
const TEAMS: [&str; 7] = [
    "core", "platform", "data", "sre", "growth", "security", "infra",
];

/// Images with pinned tags: (repository, tags).
const IMAGES: [(&str, &[&str]); 12] = [
    ("nginx", &["1.25.3", "1.27.0-alpine"]),
    ("registry.example.com/shop/api", &["2.4.1", "v1.8.0"]),
    ("ghcr.io/acme/worker", &["0.9.3", "1.0.0"]),
    ("redis", &["7.2.4"]),
    ("busybox", &["1.36.1"]),
    ("python", &["3.12.2-slim"]),
    ("node", &["20.11.1-alpine"]),
    ("quay.io/prometheus/node-exporter", &["v1.7.0"]),
    ("fluent/fluent-bit", &["2.2.2"]),
    ("gcr.io/distroless/static", &["nonroot"]),
    ("registry.internal:5000/team/service", &["3.1.0"]),
    ("golang", &["1.22.1-bookworm"]),
];

/// A drafted Kubernetes item: its documents and where things are.
#[derive(Debug, Clone)]
pub struct K8sDraft {
    /// Baseline family.
    pub family: &'static str,
    /// Documents in file order.
    pub docs: Vec<Y>,
    /// Formatting variant.
    pub style: Style,
    /// Index of the main workload document.
    pub workload: usize,
    /// Index of the Service selecting the workload, if any.
    pub service: Option<usize>,
    /// Index of a ConfigMap, if any.
    pub configmap: Option<usize>,
    /// Index of the workload's ServiceAccount document.
    pub service_account: usize,
    /// The app name (labels, selectors).
    pub app: String,
    /// The namespace of every object.
    pub namespace: String,
}

impl K8sDraft {
    /// The rendered manifest.
    pub fn render(&self) -> String {
        super::yaml::emit_docs(&self.docs, &self.style)
    }

    /// The workload's kind.
    pub fn workload_kind(&self) -> &str {
        self.docs[self.workload]
            .get("kind")
            .and_then(Y::as_str)
            .unwrap_or_default()
    }

    /// The path from the workload document to its pod spec.
    pub fn pod_spec_path(&self) -> &'static [&'static str] {
        match self.workload_kind() {
            "Pod" => &["spec"],
            "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
            _ => &["spec", "template", "spec"],
        }
    }

    /// The workload's pod spec.
    pub fn pod_spec_mut(&mut self) -> &mut Y {
        let path = self.pod_spec_path();
        self.docs[self.workload]
            .at_mut(path)
            .expect("every workload has a pod spec")
    }

    /// The workload's regular containers.
    pub fn containers_mut(&mut self) -> &mut Vec<Y> {
        self.pod_spec_mut()
            .get_mut("containers")
            .and_then(Y::items_mut)
            .expect("every pod spec has containers")
    }

    /// The workload's replicas (absent → 1).
    pub fn replicas(&self) -> u64 {
        self.docs[self.workload]
            .at(&["spec", "replicas"])
            .and_then(Y::as_str)
            .and_then(|r| r.parse().ok())
            .unwrap_or(1)
    }
}

/// Draws a baseline of `family`.
pub fn draft(rng: &mut GenRng, family: &'static str) -> K8sDraft {
    let app = format!("{}{}", rng.pick(&APPS), rng.pick(&SUFFIXES));
    let namespace = format!("{}{}", rng.pick(&NAMESPACES), rng.pick(&ENVS));
    let team = *rng.pick(&TEAMS);
    let style = Style {
        indent: if rng.chance(1, 5) { 4 } else { 2 },
        indent_seqs: rng.chance(1, 2),
        quote_all: rng.chance(1, 5),
        leading_separator: rng.chance(1, 3),
    };
    let ctx = Ctx {
        app: app.clone(),
        namespace: namespace.clone(),
        team: team.to_string(),
        sa: if rng.chance(1, 2) {
            app.clone()
        } else {
            format!("{app}-sa")
        },
    };
    let sa_doc = service_account(&ctx, rng);
    let mut docs = vec![sa_doc];
    let mut workload;
    let (mut service, mut configmap) = (None, None);
    match family {
        "deploy-svc" => {
            let port = *rng.pick(&[8080u64, 8000, 3000, 9090, 8443, 5000]);
            let w = workload_doc(&ctx, rng, "apps/v1", "Deployment", Some(port), 1, 5);
            docs.push(w);
            workload = docs.len() - 1;
            docs.push(service_doc(&ctx, rng, port, false));
            service = Some(docs.len() - 1);
            docs.push(network_policy(&ctx, port));
            if rng.chance(1, 2) {
                docs.push(ingress(&ctx, rng));
            }
            if rng.chance(1, 3) {
                docs.push(config_map(&ctx, rng));
                configmap = Some(docs.len() - 1);
            }
        }
        "statefulset" => {
            let port = *rng.pick(&[6379u64, 5432, 9042, 2379, 8080]);
            docs.push(service_doc(&ctx, rng, port, true));
            service = Some(docs.len() - 1);
            let mut w = workload_doc(&ctx, rng, "apps/v1", "StatefulSet", Some(port), 1, 5);
            let svc_name = format!("{}-headless", ctx.app);
            if let Some(spec) = w.get_mut("spec") {
                insert_after(spec, "replicas", "serviceName", s(svc_name));
            }
            docs.push(w);
            workload = docs.len() - 1;
        }
        "daemonset" => {
            let port = *rng.pick(&[9100u64, 9080, 2020, 9256]);
            docs.push(workload_doc(
                &ctx,
                rng,
                "apps/v1",
                "DaemonSet",
                Some(port),
                0,
                0,
            ));
            workload = docs.len() - 1;
        }
        "job" => {
            docs.push(workload_doc(&ctx, rng, "batch/v1", "Job", None, 0, 0));
            workload = docs.len() - 1;
        }
        "cronjob" => {
            docs.push(workload_doc(&ctx, rng, "batch/v1", "CronJob", None, 0, 0));
            workload = docs.len() - 1;
        }
        "pod" => {
            let port = *rng.pick(&[8080u64, 8000, 3000, 9090]);
            docs.push(workload_doc(&ctx, rng, "v1", "Pod", Some(port), 0, 0));
            workload = docs.len() - 1;
        }
        "rbac" => {
            docs.push(role(&ctx, rng));
            docs.push(role_binding(&ctx));
            let port = *rng.pick(&[8080u64, 8443, 9443]);
            docs.push(workload_doc(
                &ctx,
                rng,
                "apps/v1",
                "Deployment",
                Some(port),
                1,
                3,
            ));
            workload = docs.len() - 1;
        }
        _ => {
            docs.push(config_map(&ctx, rng));
            configmap = Some(docs.len() - 1);
            docs.push(secret(&ctx, rng));
            let port = *rng.pick(&[8080u64, 8000, 3000]);
            let mut w = workload_doc(&ctx, rng, "apps/v1", "Deployment", Some(port), 1, 4);
            mount_config(&ctx, &mut w);
            docs.push(w);
            workload = docs.len() - 1;
        }
    }
    // The service account first or last: a formatting variant.
    let mut service_account = 0;
    if rng.chance(1, 3) {
        let sa = docs.remove(0);
        docs.push(sa);
        service_account = docs.len() - 1;
        workload -= 1;
        service = service.map(|i| i - 1);
        configmap = configmap.map(|i| i - 1);
    }
    K8sDraft {
        family,
        docs,
        style,
        workload,
        service,
        configmap,
        service_account,
        app,
        namespace,
    }
}

struct Ctx {
    app: String,
    namespace: String,
    team: String,
    sa: String,
}

fn metadata(ctx: &Ctx, name: &str, labels: bool) -> Y {
    let mut m = map([("name", s(name)), ("namespace", s(&ctx.namespace))]);
    if labels {
        m.set("labels", app_labels(ctx));
    }
    m
}

fn app_labels(ctx: &Ctx) -> Y {
    map([
        ("app", s(&ctx.app)),
        ("app.kubernetes.io/name", s(&ctx.app)),
        ("team", s(&ctx.team)),
    ])
}

fn selector(ctx: &Ctx) -> Y {
    map([("app", s(&ctx.app))])
}

fn insert_after(m: &mut Y, after: &str, key: &str, value: Y) {
    if let Y::Map(pairs) = m {
        let at = pairs
            .iter()
            .position(|(k, _)| k == after)
            .map_or(pairs.len(), |i| i + 1);
        pairs.insert(at, (key.to_string(), value));
    }
}

fn service_account(ctx: &Ctx, rng: &mut GenRng) -> Y {
    let mut sa = map([
        ("apiVersion", s("v1")),
        ("kind", s("ServiceAccount")),
        ("metadata", metadata(ctx, &ctx.sa, rng.chance(1, 2))),
    ]);
    if rng.chance(1, 2) {
        sa.set("automountServiceAccountToken", boolean(false));
    }
    sa
}

fn image(rng: &mut GenRng) -> String {
    let (repo, tags) = rng.pick(&IMAGES);
    let tag = rng.pick(tags);
    if rng.chance(1, 6) {
        format!("{repo}:{tag}@sha256:{}", rng.hex(64))
    } else {
        format!("{repo}:{tag}")
    }
}

fn quantity_pair(rng: &mut GenRng) -> (Y, Y) {
    let (cpu_req, cpu_lim) = *rng.pick(&[
        ("50m", "200m"),
        ("100m", "500m"),
        ("250m", "1"),
        ("500m", "2"),
    ]);
    let (mem_req, mem_lim) = *rng.pick(&[
        ("64Mi", "128Mi"),
        ("128Mi", "256Mi"),
        ("256Mi", "512Mi"),
        ("512Mi", "1Gi"),
    ]);
    (
        map([("cpu", s(cpu_req)), ("memory", s(mem_req))]),
        map([("cpu", s(cpu_lim)), ("memory", s(mem_lim))]),
    )
}

fn container(ctx: &Ctx, rng: &mut GenRng, name: &str, port: Option<u64>) -> Y {
    let mut c = map([("name", s(name)), ("image", s(image(rng)))]);
    if rng.chance(1, 2) {
        c.set("imagePullPolicy", s("IfNotPresent"));
    }
    let port_name = *rng.pick(&["http", "web", "metrics", "app", "tcp-main"]);
    if let Some(p) = port {
        c.set(
            "ports",
            seq(vec![map([
                ("name", s(port_name)),
                ("containerPort", int(p)),
                ("protocol", s("TCP")),
            ])]),
        );
    }
    if rng.chance(1, 2) {
        let mut env = vec![map([
            ("name", s("LOG_LEVEL")),
            ("value", s(*rng.pick(&["info", "debug", "warn"]))),
        ])];
        if rng.chance(1, 2) {
            env.push(map([("name", s("APP_NAME")), ("value", s(&ctx.app))]));
        }
        if rng.chance(1, 3) {
            env.push(map([
                ("name", s("POD_NAMESPACE")),
                (
                    "valueFrom",
                    map([("fieldRef", map([("fieldPath", s("metadata.namespace"))]))]),
                ),
            ]));
        }
        c.set("env", seq(env));
    }
    let (requests, limits) = quantity_pair(rng);
    c.set(
        "resources",
        map([("requests", requests), ("limits", limits)]),
    );
    if let Some(p) = port {
        // Probes name the port or use its number: both are exposed.
        let target = if rng.chance(1, 2) {
            s(port_name)
        } else {
            int(p)
        };
        let http = rng.chance(1, 2);
        let probe = |path: &str| {
            if http {
                map([(
                    "httpGet",
                    map([("path", s(path)), ("port", target.clone())]),
                )])
            } else {
                map([("tcpSocket", map([("port", target.clone())]))])
            }
        };
        let mut live = probe("/healthz");
        live.set("initialDelaySeconds", int(rng.int(5, 30)));
        live.set("periodSeconds", int(*rng.pick(&[10u64, 15, 20])));
        let mut ready = probe("/ready");
        ready.set("periodSeconds", int(*rng.pick(&[5u64, 10])));
        c.set("livenessProbe", live);
        c.set("readinessProbe", ready);
    }
    let mut sc = map([
        ("allowPrivilegeEscalation", boolean(false)),
        ("readOnlyRootFilesystem", boolean(true)),
        ("capabilities", map([("drop", seq(vec![s("ALL")]))])),
    ]);
    if rng.chance(1, 3) {
        // Order variant.
        if let Y::Map(pairs) = &mut sc {
            pairs.reverse();
        }
    }
    c.set("securityContext", sc);
    c.set(
        "volumeMounts",
        seq(vec![map([("name", s("tmp")), ("mountPath", s("/tmp"))])]),
    );
    c
}

fn pod_spec(ctx: &Ctx, rng: &mut GenRng, port: Option<u64>, replicas: u64, restart: &str) -> Y {
    let uid = rng.int(10_000, 65_000);
    let mut psc = map([("runAsNonRoot", boolean(true)), ("runAsUser", int(uid))]);
    if rng.chance(1, 2) {
        psc.set("runAsGroup", int(uid));
        psc.set("fsGroup", int(uid));
    }
    if rng.chance(1, 2) {
        psc.set("seccompProfile", map([("type", s("RuntimeDefault"))]));
    }
    let mut spec = map([("serviceAccountName", s(&ctx.sa))]);
    if rng.chance(1, 2) {
        spec.set("automountServiceAccountToken", boolean(false));
    }
    if !restart.is_empty() {
        spec.set("restartPolicy", s(restart));
    }
    spec.set("securityContext", psc);
    let cname = if rng.chance(1, 2) {
        ctx.app.clone()
    } else {
        (*rng.pick(&["app", "main", "server"])).to_string()
    };
    spec.set("containers", seq(vec![container(ctx, rng, &cname, port)]));
    spec.set(
        "volumes",
        seq(vec![map([("name", s("tmp")), ("emptyDir", map([]))])]),
    );
    if replicas >= 2 {
        let term = map([
            ("labelSelector", map([("matchLabels", selector(ctx))])),
            ("topologyKey", s("kubernetes.io/hostname")),
        ]);
        let anti = if rng.chance(1, 2) {
            map([(
                "requiredDuringSchedulingIgnoredDuringExecution",
                seq(vec![term]),
            )])
        } else {
            map([(
                "preferredDuringSchedulingIgnoredDuringExecution",
                seq(vec![map([("weight", int(100)), ("podAffinityTerm", term)])]),
            )])
        };
        spec.set("affinity", map([("podAntiAffinity", anti)]));
    }
    spec
}

fn template(ctx: &Ctx, spec: Y) -> Y {
    map([
        ("metadata", map([("labels", app_labels(ctx))])),
        ("spec", spec),
    ])
}

/// A workload of `kind`; `lo..=hi` replicas for replicated kinds.
fn workload_doc(
    ctx: &Ctx,
    rng: &mut GenRng,
    api: &str,
    kind: &str,
    port: Option<u64>,
    lo: u64,
    hi: u64,
) -> Y {
    let head = |meta: Y| {
        map([
            ("apiVersion", s(api)),
            ("kind", s(kind)),
            ("metadata", meta),
        ])
    };
    match kind {
        "Pod" => {
            let mut doc = head(metadata(ctx, &ctx.app, true));
            doc.set("spec", pod_spec(ctx, rng, port, 1, ""));
            doc
        }
        "Job" => {
            let mut doc = head(metadata(ctx, &format!("{}-migrate", ctx.app), true));
            let restart = *rng.pick(&["Never", "OnFailure"]);
            doc.set(
                "spec",
                map([
                    (
                        "ttlSecondsAfterFinished",
                        int(*rng.pick(&[300u64, 600, 3600, 86_400])),
                    ),
                    ("backoffLimit", int(rng.int(1, 6))),
                    (
                        "template",
                        template(ctx, pod_spec(ctx, rng, None, 1, restart)),
                    ),
                ]),
            );
            doc
        }
        "CronJob" => {
            let mut doc = head(metadata(ctx, &format!("{}-report", ctx.app), true));
            let schedule = format!("{} {} * * *", rng.int(0, 59), rng.int(0, 23));
            let restart = *rng.pick(&["Never", "OnFailure"]);
            doc.set(
                "spec",
                map([
                    ("schedule", s(schedule)),
                    ("concurrencyPolicy", s("Forbid")),
                    ("successfulJobsHistoryLimit", int(rng.int(1, 3))),
                    (
                        "jobTemplate",
                        map([(
                            "spec",
                            map([
                                ("backoffLimit", int(rng.int(1, 4))),
                                (
                                    "template",
                                    template(ctx, pod_spec(ctx, rng, None, 1, restart)),
                                ),
                            ]),
                        )]),
                    ),
                ]),
            );
            doc
        }
        _ => {
            let replicas = if hi == 0 { 0 } else { rng.int(lo, hi) };
            let mut spec = Y::Map(Vec::new());
            if hi > 0 {
                spec.set("replicas", int(replicas));
            }
            spec.set("selector", map([("matchLabels", selector(ctx))]));
            if kind == "DaemonSet" || rng.chance(1, 2) {
                let key = if kind == "Deployment" {
                    "strategy"
                } else {
                    "updateStrategy"
                };
                spec.set(key, map([("type", s("RollingUpdate"))]));
            }
            spec.set(
                "template",
                template(ctx, pod_spec(ctx, rng, port, replicas, "")),
            );
            let mut doc = head(metadata(ctx, &ctx.app, true));
            doc.set("spec", spec);
            doc
        }
    }
}

fn service_doc(ctx: &Ctx, rng: &mut GenRng, port: u64, headless: bool) -> Y {
    let name = if headless {
        format!("{}-headless", ctx.app)
    } else {
        ctx.app.clone()
    };
    let mut spec = Y::Map(Vec::new());
    if headless {
        spec.set("clusterIP", s("None"));
    } else if rng.chance(1, 2) {
        spec.set("type", s("ClusterIP"));
    }
    spec.set("selector", selector(ctx));
    let svc_port = if headless || rng.chance(1, 2) {
        port
    } else {
        80
    };
    spec.set(
        "ports",
        seq(vec![map([
            ("name", s("main")),
            ("port", int(svc_port)),
            ("targetPort", int(port)),
            ("protocol", s("TCP")),
        ])]),
    );
    map([
        ("apiVersion", s("v1")),
        ("kind", s("Service")),
        ("metadata", metadata(ctx, &name, true)),
        ("spec", spec),
    ])
}

fn network_policy(ctx: &Ctx, port: u64) -> Y {
    map([
        ("apiVersion", s("networking.k8s.io/v1")),
        ("kind", s("NetworkPolicy")),
        (
            "metadata",
            metadata(ctx, &format!("{}-ingress", ctx.app), false),
        ),
        (
            "spec",
            map([
                ("podSelector", map([("matchLabels", selector(ctx))])),
                ("policyTypes", seq(vec![s("Ingress")])),
                (
                    "ingress",
                    seq(vec![map([
                        (
                            "from",
                            seq(vec![map([(
                                "namespaceSelector",
                                map([(
                                    "matchLabels",
                                    map([("kubernetes.io/metadata.name", s("ingress-nginx"))]),
                                )]),
                            )])]),
                        ),
                        (
                            "ports",
                            seq(vec![map([("protocol", s("TCP")), ("port", int(port))])]),
                        ),
                    ])]),
                ),
            ]),
        ),
    ])
}

fn ingress(ctx: &Ctx, rng: &mut GenRng) -> Y {
    let domain = *rng.pick(&["example.com", "example.org", "corp.example.net"]);
    map([
        ("apiVersion", s("networking.k8s.io/v1")),
        ("kind", s("Ingress")),
        ("metadata", metadata(ctx, &ctx.app, false)),
        (
            "spec",
            map([
                ("ingressClassName", s("nginx")),
                (
                    "rules",
                    seq(vec![map([
                        ("host", s(format!("{}.{domain}", ctx.app))),
                        (
                            "http",
                            map([(
                                "paths",
                                seq(vec![map([
                                    ("path", s("/")),
                                    ("pathType", s("Prefix")),
                                    (
                                        "backend",
                                        map([(
                                            "service",
                                            map([
                                                ("name", s(&ctx.app)),
                                                ("port", map([("name", s("main"))])),
                                            ]),
                                        )]),
                                    ),
                                ])]),
                            )]),
                        ),
                    ])]),
                ),
            ]),
        ),
    ])
}

fn config_map(ctx: &Ctx, rng: &mut GenRng) -> Y {
    let mut data = map([
        ("LOG_FORMAT", s(*rng.pick(&["json", "text"]))),
        ("CACHE_TTL_SECONDS", s(rng.int(30, 900).to_string())),
    ]);
    if rng.chance(1, 2) {
        data.set(
            "FEATURE_FLAGS",
            s(*rng.pick(&["beta-ui,fast-path", "none", "search-v2"])),
        );
    }
    if rng.chance(1, 2) {
        data.set(
            "UPSTREAM_URL",
            s(format!("http://{}.{}.svc:8080", ctx.app, ctx.namespace)),
        );
    }
    map([
        ("apiVersion", s("v1")),
        ("kind", s("ConfigMap")),
        (
            "metadata",
            metadata(ctx, &format!("{}-config", ctx.app), rng.chance(1, 2)),
        ),
        ("data", data),
    ])
}

fn secret(ctx: &Ctx, rng: &mut GenRng) -> Y {
    // Opaque test material, base64 of random bytes: not a credential.
    let b64 = |rng: &mut GenRng| {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        (0..32)
            .map(|_| char::from(ALPHABET[rng.below(64) as usize]))
            .collect::<String>()
    };
    map([
        ("apiVersion", s("v1")),
        ("kind", s("Secret")),
        (
            "metadata",
            metadata(ctx, &format!("{}-tls", ctx.app), false),
        ),
        ("type", s("Opaque")),
        (
            "data",
            map([("tls.crt", s(b64(rng))), ("tls.key", s(b64(rng)))]),
        ),
    ])
}

/// Mounts the ConfigMap as environment and the Secret as files.
fn mount_config(ctx: &Ctx, workload: &mut Y) {
    let Some(spec) = workload.at_mut(&["spec", "template", "spec"]) else {
        return;
    };
    if let Some(c) = spec
        .get_mut("containers")
        .and_then(Y::items_mut)
        .and_then(|v| v.first_mut())
    {
        c.set(
            "envFrom",
            seq(vec![map([(
                "configMapRef",
                map([("name", s(format!("{}-config", ctx.app)))]),
            )])]),
        );
        if let Some(mounts) = c.get_mut("volumeMounts").and_then(Y::items_mut) {
            mounts.push(map([
                ("name", s("tls")),
                ("mountPath", s("/etc/tls")),
                ("readOnly", boolean(true)),
            ]));
        }
    }
    if let Some(vols) = spec.get_mut("volumes").and_then(Y::items_mut) {
        vols.push(map([
            ("name", s("tls")),
            (
                "secret",
                map([("secretName", s(format!("{}-tls", ctx.app)))]),
            ),
        ]));
    }
}

fn role(ctx: &Ctx, rng: &mut GenRng) -> Y {
    const CHOICES: [&[&str]; 3] = [&["configmaps"], &["configmaps", "endpoints"], &["leases"]];
    let resources = *rng.pick(&CHOICES);
    let group = if resources == ["leases"] {
        "coordination.k8s.io"
    } else {
        ""
    };
    map([
        ("apiVersion", s("rbac.authorization.k8s.io/v1")),
        ("kind", s("Role")),
        (
            "metadata",
            metadata(ctx, &format!("{}-reader", ctx.app), false),
        ),
        (
            "rules",
            seq(vec![map([
                ("apiGroups", seq(vec![s(group)])),
                ("resources", seq(resources.iter().map(|r| s(*r)).collect())),
                ("verbs", seq(vec![s("get"), s("list"), s("watch")])),
            ])]),
        ),
    ])
}

fn role_binding(ctx: &Ctx) -> Y {
    map([
        ("apiVersion", s("rbac.authorization.k8s.io/v1")),
        ("kind", s("RoleBinding")),
        (
            "metadata",
            metadata(ctx, &format!("{}-reader", ctx.app), false),
        ),
        (
            "subjects",
            seq(vec![map([
                ("kind", s("ServiceAccount")),
                ("name", s(&ctx.sa)),
                ("namespace", s(&ctx.namespace)),
            ])]),
        ),
        (
            "roleRef",
            map([
                ("apiGroup", s("rbac.authorization.k8s.io")),
                ("kind", s("Role")),
                ("name", s(format!("{}-reader", ctx.app))),
            ]),
        ),
    ])
}
