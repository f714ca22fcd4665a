//! The E4 scorer end to end: a completion scored against an embedded email
//! (parsing both ways, evidence grounding against the rendered email,
//! reward), through the same `Service` as `eval`, the server and Python.
//! Input and invariants as [`crate::e2_score`].

/// One input: header line and completion.
pub fn run(data: &[u8]) {
    crate::e2_score::run_env("e4", data);
}
