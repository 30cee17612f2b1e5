//! JSON-RPC intake of POST bodies on /mcp (axgate::fuzzing::intake).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| axgate::fuzzing::intake(data));
