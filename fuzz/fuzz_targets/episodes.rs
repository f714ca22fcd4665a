#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| svbench_fuzz::episodes::run(data));
