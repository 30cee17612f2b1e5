//! Build script: records the git commit the binary is built from (for `axgate_build_info`),
//! when the source is a git checkout; otherwise the metric says `unknown`.

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
        println!("cargo:rustc-env=AXGATE_GIT_SHA={sha}");
    }
}
