//! JSON readers for answer extraction: strict RFC 8259 with duplicate-key
//! detection (`v1`) and Python `json.loads` emulation (`upstream`).
