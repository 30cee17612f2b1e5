//! The element path grammar: parse, and display → parse round-trips
//! (axgate_parse::fuzzing::element_path).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| axgate_parse::fuzzing::element_path(data));
