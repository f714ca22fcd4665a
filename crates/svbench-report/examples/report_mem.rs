//! Peak memory of `report_run` alone (no CLI integrity check):
//! `cargo run --release -p svbench-report --example report_mem -- RUN_DIR`.
#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: report_mem RUN_DIR");
    let opts = svbench_report::ReportOptions {
        timestamp: Some("2026-01-01T00:00:00Z".to_string()),
        ..svbench_report::ReportOptions::new(common::plugins)
    };
    let t = std::time::Instant::now();
    svbench_report::report_run(std::path::Path::new(&dir), &opts).expect("report");
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("");
    eprintln!("{:.2} s {}", t.elapsed().as_secs_f64(), hwm);
}
