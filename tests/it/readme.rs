//! The README's commands as a newcomer types them: `cargo run --release -- serve` runs the
//! binary in the environment cargo gives it, which holds the build script's `rustc-env`
//! variables. Here the binary is started with the test's whole environment, which cargo fills
//! the same way, and nothing removed.

use std::process::Command;

#[test]
fn the_binary_starts_in_the_environment_cargo_run_gives_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_axgate"))
        .args(["check", "--backend", "demo"])
        .output()
        .expect("run the axgate binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "axgate refused the environment cargo gives it: {stderr}"
    );
    assert!(stdout.contains("ready"), "check output: {stdout}");
}
