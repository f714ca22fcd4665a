//! The integration tests of svbench-scan, one module per topic, built as a
//! single test binary (one link instead of thirty-odd: the release test build
//! in CI links regorus and the YAML stack once).

mod budget;
mod conformance;
mod external_process;
mod external_tools;
mod kube_linter_checks;
mod kube_linter_conformance;
mod kube_linter_decode;
mod kube_linter_model;
mod kube_linter_next;
mod kube_linter_opt_in_cross;
mod kube_linter_opt_in_pod;
mod kube_linter_props;
mod kube_linter_registry;
mod opa_builtin;
mod opa_k8s;
mod opa_tf;
mod opa_user;
mod patch_diff;
mod patch_json;
mod patch_preserve;
mod props;
mod rego_dir;
mod rego_eval;
mod resolve;
mod scan_bad_input;
mod semgrep_conformance;
mod semgrep_rules;
mod semgrep_scan;
mod split;
mod terraform_eval;
mod terraform_index;
mod terraform_lines;
mod terraform_parse;
mod terraform_props;
mod tree;
mod upstream_mini;
