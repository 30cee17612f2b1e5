//! The Authorization header, static tokens and JWT verification against a generated key
//! (axgate::fuzzing::token).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| axgate::fuzzing::token(data));
