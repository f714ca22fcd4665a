//! Integration tests of `svbench serve` (harness §11 item 18): the router
//! called in process for what a socket adds nothing to, and a server on
//! 127.0.0.1:0 per test, driven over loopback HTTP, for the connections,
//! the background sweeper and shutdown.

mod budgets;
mod common;
mod connections;
mod episodes;
mod errors;
mod fs_access;
mod parity;
mod pool;
mod routes;
