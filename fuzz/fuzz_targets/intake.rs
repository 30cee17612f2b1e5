//! JSON-RPC intake of POST bodies on /mcp (axgate_parse::fuzzing::intake).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| axgate_parse::fuzzing::intake(data));
