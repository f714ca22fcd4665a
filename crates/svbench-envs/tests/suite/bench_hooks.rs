//! Every registered benchmark builds its workloads and measures them at the
//! smallest size, writing figure lines named by its environment.

use svbench_envs::kit::bench::BenchRequest;
use svbench_envs::registry::REGISTRY;

#[test]
fn every_bench_hook_runs_at_the_smallest_size() {
    let mut ran = 0;
    for entry in REGISTRY {
        let Some(bench) = entry.bench else {
            continue;
        };
        let mut lines = Vec::new();
        let req = BenchRequest { items: 1, large: 1 };
        (bench.run)(&req, &mut |line| {
            lines.push(line.to_string());
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{}: {e}", entry.name()));
        assert!(!lines.is_empty(), "{}: no figures", entry.name());
        let prefix = format!("{} ", entry.identity.short);
        for line in &lines {
            assert!(line.starts_with(&prefix), "{}: {line}", entry.name());
        }
        ran += 1;
    }
    assert!(ran >= 3, "{ran} benchmarks");
}

#[test]
fn a_closed_sink_stops_the_benchmark_with_its_error() {
    let e1 = svbench_envs::registry::find("e1").expect("e1");
    let bench = e1.bench.expect("e1 has a benchmark");
    let err = (bench.run)(&BenchRequest { items: 1, large: 0 }, &mut |_| {
        Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    })
    .expect_err("the sink refused");
    assert!(matches!(
        err,
        svbench_envs::kit::bench::BenchError::Io(ref io) if io.kind() == std::io::ErrorKind::BrokenPipe
    ));
}
