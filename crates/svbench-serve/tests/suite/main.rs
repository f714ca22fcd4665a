//! Integration tests of `svbench serve` (harness §11 item 18): an
//! in-process server on 127.0.0.1:0 per test, driven over loopback HTTP.

mod common;
mod connections;
mod episodes;
mod errors;
mod fs_access;
mod parity;
mod routes;
