//! svbench runner.
