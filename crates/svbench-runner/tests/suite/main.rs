//! The integration tests of svbench-runner, one module per topic, built as a single
//! test binary: the release test build in CI links the analyzers (regorus,
//! the YAML stack) once instead of once per file.

mod cache_policy;
mod cache_store;
mod cache_throughput;
mod client_http;
mod client_routing;
mod e2_rollout;
mod example_set;
mod non_finite;
mod sample_timeout;
mod shutdown;
