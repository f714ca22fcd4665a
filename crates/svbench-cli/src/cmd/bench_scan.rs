//! `svbench bench scan`: all config analyzers on the upstream mini configs
//! and on a generated manifest set. Prints figures; asserts nothing.

use crate::out::outln;
use std::path::{Path, PathBuf};
use std::time::Instant;

use svbench_scan::scan::{FileType, ScanOptions, Scanner, ToolSelection};

use crate::exit;

/// Start-up of one `opa eval` process, the cost of shelling out per config
/// that the native analyzers replace (measured upstream, issue 4).
const OPA_PROCESS_MS: f64 = 45.0;

/// Where the upstream mini set lives in a checkout next to `../shared`.
fn default_mini() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/upstream-sv/public_mini/e2.jsonl")
}

/// Runs the scan benchmarks.
pub fn run(configs: Option<&Path>, generated: usize, tools: Option<&str>) -> anyhow::Result<u8> {
    let mut options = ScanOptions::default();
    if let Some(list) = tools {
        options.tools = ToolSelection::parse(list).map_err(|e| exit::usage(e.to_string()))?;
    }
    let mut scanner = Scanner::new(&options).map_err(|e| exit::usage(e.to_string()))?;
    let mini_path = configs.map_or_else(default_mini, Path::to_path_buf);
    match std::fs::read_to_string(&mini_path) {
        Ok(text) => {
            let items = mini_items(&text)?;
            bench_set(
                &mut scanner,
                &format!("upstream mini ({})", mini_path.display()),
                &items,
            )?;
        }
        Err(e) if configs.is_some() => {
            return Err(exit::usage(format!("{}: {e}", mini_path.display())))
        }
        Err(_) => eprintln!(
            "notice: {} not found (../shared absent); benchmarking generated manifests only",
            mini_path.display()
        ),
    }
    if generated > 0 {
        let items: Vec<(FileType, String)> = (0..generated)
            .map(|i| (FileType::K8s, generated_manifest(i as u64)))
            .collect();
        bench_set(
            &mut scanner,
            &format!("{generated} generated manifests"),
            &items,
        )?;
    }
    Ok(exit::OK)
}

/// `(type, config)` of every row of an upstream-style E2 JSONL file.
fn mini_items(text: &str) -> anyhow::Result<Vec<(FileType, String)>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, line)| {
            let row: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| exit::data(format!("line {}: {e}", n + 1)))?;
            let config = row["question"]
                .as_str()
                .ok_or_else(|| exit::data(format!("line {}: no `question` text", n + 1)))?;
            let ty = if row["meta"]["lang"] == "tf" {
                FileType::Tf
            } else {
                FileType::K8s
            };
            Ok((ty, config.to_owned()))
        })
        .collect()
}

/// Scans every item once to warm up, then three timed passes: per-config
/// latencies (p50/p90/p99/max) and the wall time of one whole pass.
fn bench_set(
    scanner: &mut Scanner,
    label: &str,
    items: &[(FileType, String)],
) -> std::io::Result<()> {
    let name = |ty: FileType| {
        if ty == FileType::Tf {
            "main.tf"
        } else {
            "manifest.yaml"
        }
    };
    let mut findings = 0usize;
    for (ty, text) in items {
        findings += scanner.scan(name(*ty), text.as_bytes(), *ty).findings.len();
    }
    let mut latencies = Vec::with_capacity(items.len() * 3);
    let mut slowest: Vec<(f64, usize)> = vec![(0.0, 0); items.len()];
    let mut pass_secs = f64::INFINITY;
    for _ in 0..3 {
        let pass = Instant::now();
        for (i, (ty, text)) in items.iter().enumerate() {
            let start = Instant::now();
            let report = scanner.scan(name(*ty), text.as_bytes(), *ty);
            let ms = start.elapsed().as_secs_f64() * 1e3;
            latencies.push(ms);
            slowest[i] = (slowest[i].0.max(ms), i);
            std::hint::black_box(report);
        }
        pass_secs = pass_secs.min(pass.elapsed().as_secs_f64());
    }
    latencies.sort_by(f64::total_cmp);
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p).round() as usize];
    let bytes: usize = items.iter().map(|(_, t)| t.len()).sum();
    let p50 = pct(0.5);
    outln!(
        "scan {label}: {} configs ({:.1} KB mean), {findings} findings; per config p50 {p50:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms; whole set {:.3} s wall on one core; p50 is {:.0}x faster than one opa process start ({OPA_PROCESS_MS} ms)",
        items.len(),
        bytes as f64 / items.len().max(1) as f64 / 1e3,
        pct(0.9),
        pct(0.99),
        pct(1.0),
        pass_secs,
        OPA_PROCESS_MS / p50,
    )?;
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    let worst: Vec<String> = slowest
        .iter()
        .take(3)
        .map(|(ms, i)| format!("#{i} {ms:.1} ms ({:.1} KB)", items[*i].1.len() as f64 / 1e3))
        .collect();
    outln!("  slowest: {}", worst.join(", "))?;
    Ok(())
}

/// A deterministic multi-document manifest (Deployment + Service, sometimes
/// a ServiceAccount and a PDB) of roughly 2–5 KB with varied security settings.
fn generated_manifest(seed: u64) -> String {
    use std::fmt::Write;
    let mut rng = SplitMix(seed);
    let app = format!("app-{seed}");
    let replicas = 1 + rng.below(4);
    let mut out = String::new();
    let _ = write!(
        out,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {app}\n  namespace: team-{ns}\n  labels:\n    app: {app}\n    owner: team-{ns}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {app}\n  template:\n    metadata:\n      labels:\n        app: {app}\n    spec:\n",
        ns = rng.below(5)
    );
    if rng.below(2) == 0 {
        out.push_str("      serviceAccountName: runner\n");
    }
    if rng.below(3) == 0 {
        out.push_str("      hostNetwork: true\n");
    }
    if rng.below(2) == 0 {
        out.push_str(
            "      securityContext:\n        runAsNonRoot: true\n        runAsUser: 10001\n",
        );
    }
    out.push_str("      containers:\n");
    for c in 0..1 + rng.below(3) {
        let tag = [
            "1.25.3",
            "latest",
            "",
            "2.4@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ][rng.below(4) as usize];
        let image = if tag.is_empty() {
            "nginx".to_owned()
        } else if tag.starts_with('2') {
            format!("registry.example/app:{tag}")
        } else {
            format!("nginx:{tag}")
        };
        let _ = write!(
            out,
            "      - name: c{c}\n        image: {image}\n        ports:\n        - containerPort: {port}\n          name: http{c}\n        env:\n        - name: LOG_LEVEL\n          value: info\n        - name: DB_SECRET\n          value: {secret}\n        resources:\n          requests:\n            cpu: {cpu}m\n            memory: 128Mi\n          limits:\n            memory: {mem}Mi\n",
            port = [80, 8080, 22, 443][rng.below(4) as usize],
            secret = if rng.below(4) == 0 { "hunter2" } else { "\"\"" },
            cpu = rng.below(3) * 100,
            mem = rng.below(3) * 256,
        );
        let _ = write!(
            out,
            "        securityContext:\n          readOnlyRootFilesystem: {}\n          allowPrivilegeEscalation: {}\n          privileged: {}\n          capabilities:\n            drop: [\"{}\"]\n",
            rng.below(2) == 0,
            rng.below(3) == 0,
            rng.below(6) == 0,
            ["ALL", "NET_RAW", "CHOWN"][rng.below(3) as usize],
        );
        out.push_str("        livenessProbe:\n          httpGet:\n            path: /healthz\n            port: 8080\n          periodSeconds: 10\n");
    }
    let _ = write!(
        out,
        "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {app}\nspec:\n  type: {ty}\n  selector:\n    app: {sel}\n  ports:\n  - port: 80\n    targetPort: {tp}\n",
        ty = ["ClusterIP", "NodePort", "LoadBalancer"][rng.below(3) as usize],
        sel = if rng.below(4) == 0 { "other" } else { &app },
        tp = if rng.below(5) == 0 { "Not_Valid" } else { "8080" },
    );
    if rng.below(2) == 0 {
        out.push_str("---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: runner\n");
    }
    if rng.below(3) == 0 {
        let _ = write!(out, "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: {app}\nspec:\n  minAvailable: {}\n  selector:\n    matchLabels:\n      app: {app}\n", 1 + rng.below(3));
    }
    out
}

/// SplitMix64: a tiny deterministic generator (no dependency for a benchmark).
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}
