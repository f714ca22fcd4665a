//! The integration tests of svbench-envs, one module per topic, built as a single
//! test binary: the release test build in CI links the analyzers (regorus,
//! the YAML stack) once instead of once per file.

mod bench_hooks;
#[cfg(feature = "e1")]
mod e1_data;
#[cfg(feature = "e1")]
mod e1_data_design;
#[cfg(feature = "e1")]
mod e1_loader;
#[cfg(feature = "e1")]
mod e1_parse;
#[cfg(feature = "e1")]
mod e1_parse_props;
#[cfg(feature = "e1")]
mod e1_parse_upstream_vectors;
#[cfg(feature = "e1")]
mod e1_policies;
#[cfg(feature = "e1")]
mod e1_reward;
#[cfg(feature = "e1")]
mod e1_zeek;
#[cfg(feature = "e2")]
mod e2_env;
#[cfg(feature = "e2")]
mod e2_external;
#[cfg(feature = "e2")]
mod e2_generate;
#[cfg(feature = "e2")]
mod e2_ids;
#[cfg(feature = "e2")]
mod e2_live_oracle;
#[cfg(feature = "e2")]
mod e2_node_budget;
#[cfg(feature = "e2")]
mod e2_parse;
#[cfg(feature = "e2")]
mod e2_patch_exploits;
#[cfg(feature = "e2")]
mod e2_reward;
#[cfg(feature = "e2")]
mod e2_tools;
#[cfg(feature = "e2")]
mod e2_upstream_patch;
#[cfg(feature = "e4")]
mod e4_acceptance;
#[cfg(feature = "e4")]
mod e4_generate;
#[cfg(feature = "e4")]
mod e4_import;
mod module_graph;
#[cfg(all(feature = "e1", feature = "e2"))]
mod parse_nesting;
#[cfg(all(feature = "e1", feature = "e2"))]
mod row_size;

/// A scored answer's `parsed` and compatibility fields as written to
/// `results.jsonl`: the tests check the bytes' contract, not the Rust shape.
#[cfg(feature = "e2")]
trait WrittenJson {
    fn parsed(&self) -> serde_json::Value;
    fn compat(&self) -> serde_json::Value;
}

#[cfg(feature = "e2")]
impl WrittenJson for svbench_envs::environment::ScoredAnswer {
    fn parsed(&self) -> serde_json::Value {
        serde_json::to_value(&self.parsed).expect("parsed serialises")
    }
    fn compat(&self) -> serde_json::Value {
        serde_json::to_value(&self.compat).expect("compat serialises")
    }
}
