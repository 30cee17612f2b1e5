//! The release channels and the GitHub Action's scripts, run for real: the LICENSE matches
//! Cargo.toml; `deploy/homebrew/formula.sh` writes a formula Ruby accepts from a release's
//! checksums and refuses incomplete ones; the action's `install.sh` installs a "released"
//! binary served over loopback HTTP (the latest tag resolved through the redirect GitHub
//! answers with), and refuses an archive whose checksum does not match.
//!
//! Ruby comes from Debian's `ruby` package (installed by `.ci/run`); the tests fail without it.

use super::*;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Stdio};

/// A file server on a loopback port (Python's `http.server`) over `dir`, answering
/// `GET /latest` with a redirect to `/tag/<latest>` as GitHub's releases do.
struct Releases {
    child: Child,
    base: String,
}

impl Releases {
    fn serve(dir: &Path, latest: &str) -> Releases {
        let script = format!(
            r#"
import functools, http.server, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/latest":
            self.send_response(302)
            self.send_header("Location", "/tag/{latest}")
            self.end_headers()
        elif self.path.startswith("/tag/"):
            self.send_response(200)
            self.end_headers()
        else:
            super().do_GET()
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=sys.argv[1]))
print(server.server_address[1], flush=True)
server.serve_forever()
"#
        );
        let mut child = Command::new("python3")
            .args(["-c", &script])
            .arg(dir)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start python3's http.server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the server's port");
        let port: u16 = line.trim().parse().expect("a port number");
        Releases {
            child,
            base: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Releases {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn sha256_hex(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

/// The release layout `release.yml` publishes for `tag`, with this build's binary as the
/// Linux x86_64 archive: `<dir>/download/<tag>/{axgate-<tag>-<target>.tar.gz, SHA256SUMS}`.
fn publish(dir: &Path, tag: &str) -> PathBuf {
    let target = "x86_64-unknown-linux-gnu";
    let name = format!("axgate-{tag}-{target}");
    let stage = dir.join("stage").join(&name);
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_axgate"), stage.join("axgate")).unwrap();
    let download = dir.join("download").join(tag);
    std::fs::create_dir_all(&download).unwrap();
    let archive = download.join(format!("{name}.tar.gz"));
    let status = Command::new("tar")
        .arg("-C")
        .arg(dir.join("stage"))
        .arg("-czf")
        .arg(&archive)
        .arg(&name)
        .status()
        .unwrap();
    assert!(status.success(), "tar");
    std::fs::write(
        download.join("SHA256SUMS"),
        format!("{}  {name}.tar.gz\n", sha256_hex(&archive)),
    )
    .unwrap();
    download
}

fn install(base: &str, version: &str, dir: &Path) -> (Output, PathBuf, PathBuf) {
    let bin = dir.join("bin");
    let github_path = dir.join("github_path");
    let out = Command::new("bash")
        .arg(root().join("deploy/github-actions/install.sh"))
        .env("ACTION_RELEASE_URL", base)
        .env("ACTION_VERSION", version)
        .env("ACTION_INSTALL_DIR", &bin)
        .env("GITHUB_PATH", &github_path)
        .env_remove("ACTION_REPOSITORY")
        .output()
        .expect("run install.sh");
    (out, bin, github_path)
}

#[test]
fn the_action_installs_the_latest_release_after_checking_its_checksum() {
    if cfg!(not(all(target_os = "linux", target_arch = "x86_64"))) {
        panic!("this test publishes the Linux x86_64 archive; run it there");
    }
    let dir = tempfile::tempdir().unwrap();
    publish(dir.path(), "v9.8.7");
    let releases = Releases::serve(dir.path(), "v9.8.7");

    let (out, bin, github_path) = install(&releases.base, "latest", dir.path());
    let text = combined(&out);
    assert!(out.status.success(), "install.sh failed:\n{text}");
    assert!(
        text.contains("axgate-v9.8.7-x86_64-unknown-linux-gnu.tar.gz"),
        "the latest tag was resolved: {text}"
    );
    let version = Command::new(bin.join("axgate"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("axgate "));
    assert_eq!(
        std::fs::read_to_string(&github_path).unwrap().trim(),
        bin.display().to_string(),
        "the install folder is added to the job's PATH"
    );
}

#[test]
fn the_action_refuses_an_archive_whose_checksum_does_not_match() {
    let dir = tempfile::tempdir().unwrap();
    let download = publish(dir.path(), "v1.2.3");
    let sums = download.join("SHA256SUMS");
    let line = std::fs::read_to_string(&sums).unwrap();
    std::fs::write(&sums, format!("{}{}", "0".repeat(64), &line[64..])).unwrap();
    let releases = Releases::serve(dir.path(), "v1.2.3");

    let (out, bin, _) = install(&releases.base, "v1.2.3", dir.path());
    let text = combined(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("checksum mismatch"), "{text}");
    assert!(!bin.join("axgate").exists(), "nothing is installed");

    let (out, _, _) = install(&releases.base, "1.2", dir.path());
    let text = combined(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("not a release tag like v1.2.3"), "{text}");
}

fn formula(args: &[&str]) -> Output {
    Command::new("bash")
        .arg(root().join("deploy/homebrew/formula.sh"))
        .args(args)
        .output()
        .expect("run formula.sh")
}

#[test]
fn the_homebrew_formula_names_both_macos_archives_with_their_checksums() {
    let dir = tempfile::tempdir().unwrap();
    let sums = dir.path().join("SHA256SUMS");
    let (arm, intel) = ("a".repeat(64), "b".repeat(64));
    std::fs::write(
        &sums,
        format!(
            "{arm}  axgate-v0.4.1-aarch64-apple-darwin.tar.gz\n\
             {intel} *axgate-v0.4.1-x86_64-apple-darwin.tar.gz\n\
             {}  axgate-v0.4.1-x86_64-unknown-linux-gnu.tar.gz\n",
            "c".repeat(64)
        ),
    )
    .unwrap();
    let base = "https://github.com/acme/axgate/releases/download/v0.4.1";
    let out = formula(&["v0.4.1", sums.to_str().unwrap(), base]);
    assert!(out.status.success(), "{}", combined(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    for wanted in [
        "class Axgate < Formula".to_owned(),
        "version \"0.4.1\"".to_owned(),
        format!("license \"{}\"", cargo_license()),
        format!("url \"{base}/axgate-v0.4.1-aarch64-apple-darwin.tar.gz\"\n      sha256 \"{arm}\""),
        format!(
            "url \"{base}/axgate-v0.4.1-x86_64-apple-darwin.tar.gz\"\n      sha256 \"{intel}\""
        ),
        "generate_completions_from_executable(bin/\"axgate\", \"completions\")".to_owned(),
    ] {
        assert!(
            text.contains(&wanted),
            "the formula lacks {wanted:?}:\n{text}"
        );
    }
    assert!(!text.contains("linux"), "only the macOS archives: {text}");

    let file = dir.path().join("axgate.rb");
    std::fs::write(&file, &text).unwrap();
    let ruby = Command::new("ruby")
        .arg("-c")
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ruby ({e}): apt-get install ruby"));
    assert!(ruby.status.success(), "ruby -c: {}", combined(&ruby));

    // A release missing the Intel archive makes no formula, and says what is missing.
    std::fs::write(
        &sums,
        format!("{arm}  axgate-v0.4.1-aarch64-apple-darwin.tar.gz\n"),
    )
    .unwrap();
    let out = formula(&["v0.4.1", sums.to_str().unwrap(), base]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        combined(&out).contains("no SHA-256 for axgate-v0.4.1-x86_64-apple-darwin.tar.gz"),
        "{}",
        combined(&out)
    );
}

/// Cargo.toml's `license`.
fn cargo_license() -> String {
    let manifest: toml::Table = read("Cargo.toml").parse().unwrap();
    manifest["package"]["license"].as_str().unwrap().to_owned()
}

#[test]
fn the_license_file_is_the_one_cargo_toml_names() {
    assert_eq!(cargo_license(), "Apache-2.0");
    let license = read("LICENSE");
    assert!(
        license.contains("Apache License") && license.contains("Version 2.0, January 2004"),
        "LICENSE is not the Apache License 2.0"
    );
    assert!(
        license.contains("END OF TERMS AND CONDITIONS"),
        "the whole text"
    );
}
