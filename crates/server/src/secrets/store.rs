//! Resolving a secret's value from the configured [`Source`] at the moment a call needs it.
//! A file store refuses a file that others can read (as SSH refuses a private key): the
//! operator fixes its mode, and the agent's call says so without naming the value.

use std::io::Read;
use std::path::Path;

use super::{Secret, Source, check_name};

/// The largest value read (a password or token, never a document).
const MAX_BYTES: u64 = 64 * 1024;

/// The value of `name` in `source`; `env` reads one environment variable (the process's in
/// the server, a fixed table in tests). The error names the fix and never the value.
pub fn resolve(
    source: &Source,
    name: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Secret, String> {
    check_name(name)?;
    match source {
        Source::None => Err(format!(
            "no secret store is configured, so the secret {name} cannot be resolved; the \
             operator sets secrets.source (env, file or keychain) in the server's configuration"
        )),
        Source::Env { prefix } => {
            env(&format!("{prefix}{name}"))
                .map(Secret::new)
                .ok_or_else(|| {
                    format!(
                        "unknown secret {name}: the server's environment has no {prefix}{name} \
                     (secrets.source = \"env\"); check the name, or ask the operator to set it"
                    )
                })
        }
        Source::File { dir } => from_file(dir, name),
        Source::Keychain { service } => super::keychain::lookup(service, name),
    }
}

fn from_file(dir: &Path, name: &str) -> Result<Secret, String> {
    let path = dir.join(name);
    let unknown = || {
        format!(
            "unknown secret {name}: {} has no file {name} (secrets.source = \"file\"); check \
             the name, or ask the operator to create it",
            dir.display()
        )
    };
    let file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(unknown()),
        Err(e) => return Err(format!("cannot read the secret {name} ({e})")),
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read the secret {name} ({e})"))?;
    if !meta.is_file() {
        return Err(unknown());
    }
    check_mode(&meta, &path, name)?;
    let mut bytes = zeroize::Zeroizing::new(Vec::new());
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the secret {name} ({e})"))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(format!(
            "the secret {name} is larger than {MAX_BYTES} bytes; a secret is a password or token"
        ));
    }
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| format!("the secret {name} is not UTF-8 text; store it as text"))?;
    // One trailing newline is the editor's or `echo`'s, not the secret's.
    let text = text
        .strip_suffix('\n')
        .map_or(text, |t| t.strip_suffix('\r').unwrap_or(t));
    Ok(Secret::new(text.to_owned()))
}

#[cfg(unix)]
fn check_mode(meta: &std::fs::Metadata, path: &Path, name: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!(
            "the secret {name} is not used: its file {} can be read by others (mode {mode:03o}); \
             the operator runs chmod 600 on it",
            path.display()
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_mode(_: &std::fs::Metadata, _: &Path, _: &str) -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn the_env_store_reads_the_prefixed_variable() {
        let source = Source::Env {
            prefix: "AXGATE_SECRET_".into(),
        };
        let env = |var: &str| (var == "AXGATE_SECRET_PW").then(|| "v4lue".to_owned());
        assert_eq!(resolve(&source, "PW", &env).unwrap().expose(), "v4lue");
        let unknown = resolve(&source, "OTHER", &env).unwrap_err();
        assert!(unknown.contains("unknown secret OTHER"), "{unknown}");
        assert!(unknown.contains("AXGATE_SECRET_OTHER"), "{unknown}");
    }

    #[test]
    fn the_file_store_refuses_files_others_can_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("PW");
        std::fs::write(&path, "s3cret\n").unwrap();
        let source = Source::File {
            dir: dir.path().into(),
        };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        let refused = resolve(&source, "PW", &none).unwrap_err();
        assert!(refused.contains("chmod 600"), "{refused}");
        assert!(!refused.contains("s3cret"), "{refused}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(resolve(&source, "PW", &none).unwrap().expose(), "s3cret");
        let unknown = resolve(&source, "NOPE", &none).unwrap_err();
        assert!(unknown.contains("unknown secret NOPE"), "{unknown}");
        let escape = resolve(&source, "../PW", &none).unwrap_err();
        assert!(escape.contains("not a secret name"), "{escape}");
    }

    #[test]
    fn no_store_names_the_setting() {
        let refused = resolve(&Source::None, "PW", &none).unwrap_err();
        assert!(refused.contains("secrets.source"), "{refused}");
    }
}
