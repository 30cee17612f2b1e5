//! The Authorization header, static tokens and JWT verification against a generated key
//! (axgate_parse::fuzzing::token).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| axgate_parse::fuzzing::token(data));
