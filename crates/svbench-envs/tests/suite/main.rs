//! The integration tests of svbench-envs, one module per topic, built as a single
//! test binary: the release test build in CI links the analyzers (regorus,
//! the YAML stack) once instead of once per file.

mod bench_hooks;
mod e1_data;
mod e1_data_design;
mod e1_loader;
mod e1_parse;
mod e1_parse_props;
mod e1_parse_upstream_vectors;
mod e1_policies;
mod e1_reward;
mod e1_zeek;
mod e2_env;
mod e2_external;
mod e2_generate;
mod e2_ids;
mod e2_live_oracle;
mod e2_node_budget;
mod e2_parse;
mod e2_patch_exploits;
mod e2_reward;
mod e2_tools;
mod e2_upstream_patch;
mod e4_acceptance;
mod e4_generate;
mod e4_import;
mod module_graph;
mod parse_nesting;
mod row_size;

/// A scored answer's `parsed` and compatibility fields as written to
/// `results.jsonl`: the tests check the bytes' contract, not the Rust shape.
trait WrittenJson {
    fn parsed(&self) -> serde_json::Value;
    fn compat(&self) -> serde_json::Value;
}

impl WrittenJson for svbench_envs::environment::ScoredAnswer {
    fn parsed(&self) -> serde_json::Value {
        serde_json::to_value(&self.parsed).expect("parsed serialises")
    }
    fn compat(&self) -> serde_json::Value {
        serde_json::to_value(&self.compat).expect("compat serialises")
    }
}
