//! What `launch_app` was asked for: an app bundle path, a bundle id or an app name, the
//! `open` arguments for it (with the request's environment as `--env NAME=VALUE` and its
//! arguments after `--args`), and how to recognise the launched app among running ones.
//! Plain Rust, no Apple types.

/// The launcher every Mac has.
pub(crate) const OPEN: &str = "/usr/bin/open";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spec<'a> {
    /// A path to an `.app` bundle.
    Path(&'a str),
    /// A reverse-DNS bundle id such as `com.apple.TextEdit`.
    BundleId(&'a str),
    /// An app name such as `TextEdit`.
    Name(&'a str),
}

/// Classifies a launch request; an empty one is an error.
pub(crate) fn parse(spec: &str) -> Result<Spec<'_>, String> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err("name an app by name, bundle id or .app path".to_owned());
    }
    if spec.starts_with('/') || spec.trim_end_matches('/').ends_with(".app") {
        return Ok(Spec::Path(spec.trim_end_matches('/')));
    }
    let segments: Vec<&str> = spec.split('.').collect();
    let bundle_like = segments.len() >= 2
        && segments.iter().all(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        });
    Ok(if bundle_like {
        Spec::BundleId(spec)
    } else {
        Spec::Name(spec)
    })
}

/// Arguments for `open`: `-b id` or `-a name-or-path`, then `--env NAME=VALUE` per variable
/// (open(1)'s `--env`), then `--args` and the app's arguments, which must come last: `open`
/// hands everything after `--args` to the app. `open` passes them only when it starts the
/// app; the caller refuses a request with extras for an app that runs (no `-n`: a second
/// instance of a document app is not what a suite asks for).
pub(crate) fn open_args(
    spec: Spec<'_>,
    arguments: &[String],
    environment: &[(String, String)],
) -> Vec<String> {
    let (flag, what) = match spec {
        Spec::BundleId(id) => ("-b", id),
        Spec::Path(path) | Spec::Name(path) => ("-a", path),
    };
    let mut args = vec![flag.to_owned(), what.to_owned()];
    for (name, value) in environment {
        args.push("--env".to_owned());
        args.push(format!("{name}={value}"));
    }
    if !arguments.is_empty() {
        args.push("--args".to_owned());
        args.extend(arguments.iter().cloned());
    }
    args
}

/// Whether a running app is the one `spec` names.
pub(crate) fn matches(
    spec: Spec<'_>,
    name: &str,
    bundle_id: Option<&str>,
    bundle_path: Option<&str>,
) -> bool {
    let bundle_path = bundle_path.map(|p| p.trim_end_matches('/'));
    match spec {
        Spec::Path(path) => bundle_path == Some(path),
        Spec::BundleId(id) => bundle_id.is_some_and(|b| b.eq_ignore_ascii_case(id)),
        Spec::Name(wanted) => {
            name.eq_ignore_ascii_case(wanted)
                || bundle_path
                    .and_then(|p| p.rsplit('/').next())
                    .and_then(|file| file.strip_suffix(".app"))
                    .is_some_and(|stem| stem.eq_ignore_ascii_case(wanted))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_are_classified() {
        assert_eq!(
            parse("/Applications/TextEdit.app/"),
            Ok(Spec::Path("/Applications/TextEdit.app"))
        );
        assert_eq!(parse("Foo.app"), Ok(Spec::Path("Foo.app")));
        assert_eq!(
            parse("com.apple.TextEdit"),
            Ok(Spec::BundleId("com.apple.TextEdit"))
        );
        assert_eq!(parse(" TextEdit "), Ok(Spec::Name("TextEdit")));
        assert_eq!(
            parse("Visual Studio Code"),
            Ok(Spec::Name("Visual Studio Code"))
        );
        assert_eq!(parse("v1.2 beta"), Ok(Spec::Name("v1.2 beta")));
        assert!(parse("  ").is_err());
    }

    #[test]
    fn open_arguments() {
        assert_eq!(
            open_args(Spec::BundleId("com.x.y"), &[], &[]),
            ["-b", "com.x.y"]
        );
        assert_eq!(open_args(Spec::Name("Notes"), &[], &[]), ["-a", "Notes"]);
        // The environment before `--args`; the arguments last, as given (an argument that
        // looks like an `open` option is still the app's).
        let arguments = [
            "-AppleLanguages".to_owned(),
            "(de)".to_owned(),
            "--env".to_owned(),
        ];
        let environment = [("GREETING".to_owned(), "a b=c".to_owned())];
        assert_eq!(
            open_args(
                Spec::Path("/Applications/TextEdit.app"),
                &arguments,
                &environment
            ),
            [
                "-a",
                "/Applications/TextEdit.app",
                "--env",
                "GREETING=a b=c",
                "--args",
                "-AppleLanguages",
                "(de)",
                "--env"
            ]
        );
        assert_eq!(
            open_args(Spec::BundleId("com.x.y"), &[], &environment),
            ["-b", "com.x.y", "--env", "GREETING=a b=c"]
        );
    }

    #[test]
    fn running_apps_are_recognised() {
        let path = Some("/Applications/Visual Studio Code.app");
        assert!(matches(Spec::Name("code"), "Code", None, path));
        assert!(matches(
            Spec::Name("Visual Studio Code"),
            "Code",
            None,
            path
        ));
        assert!(!matches(Spec::Name("Notes"), "Code", None, path));
        assert!(matches(
            Spec::BundleId("com.apple.textedit"),
            "TextEdit",
            Some("com.apple.TextEdit"),
            None
        ));
        assert!(matches(
            Spec::Path("/Applications/Visual Studio Code.app"),
            "Code",
            None,
            path
        ));
    }
}
