//! Build script: records the git commit the binary is built from (for `axgate_build_info`),
//! when the source is a git checkout; otherwise the metric says `unknown`.
//!
//! The variable is not named `AXGATE_*`: cargo also sets a build script's `rustc-env`
//! variables in the environment of `cargo run` and `cargo test`, and `axgate serve` refuses
//! unknown `AXGATE_*` variables — `cargo run --release -- serve` would not start.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs");
    let sha = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit()));
    if let Some(sha) = sha {
        println!("cargo:rustc-env=BUILD_GIT_SHA={sha}");
    }
}
