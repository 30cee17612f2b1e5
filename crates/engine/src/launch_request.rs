//! What a launch asks for beyond the app: the arguments and environment the new process gets
//! (`launch_app`'s `arguments`/`environment`, WebDriver's `appium:arguments` /
//! `appium:environment`), and the rule every request passes before anything starts: bounded
//! sizes, well-formed names, and no variable that makes the launched app load or run code
//! the caller chose. Whoever holds an `act` token may launch allowed apps; without this rule
//! `DYLD_INSERT_LIBRARIES` or `LD_PRELOAD` would turn that into running any code inside an
//! allowed app, with its entitlements and its accessibility grant. Values are never logged
//! or put in an error: they may be secrets.

use super::error::AxError;

/// A launch: the app (name, bundle id, path or, on AT-SPI, a command line), and what the
/// new process is started with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchRequest {
    pub spec: String,
    /// Command-line arguments, after those the spec itself carries.
    pub arguments: Vec<String>,
    /// Variables added to the process's environment, in order; names are unique.
    pub environment: Vec<(String, String)>,
}

impl LaunchRequest {
    /// A launch of `spec` with nothing added.
    pub fn app(spec: impl Into<String>) -> LaunchRequest {
        LaunchRequest {
            spec: spec.into(),
            ..LaunchRequest::default()
        }
    }

    /// Whether the new process gets anything beyond the app's own defaults.
    pub fn has_extras(&self) -> bool {
        !self.arguments.is_empty() || !self.environment.is_empty()
    }

    /// The refusal of a launch with extras whose app already runs: arguments and environment
    /// reach only a new process, and axgate never quits an app on its own (it may hold
    /// unsaved work), so the caller decides.
    pub fn already_running(&self, app: &str) -> AxError {
        AxError::Unsupported(format!(
            "{app} already runs, and arguments and environment reach only a new process; quit \
             it first (quit_app), then launch it again"
        ))
    }
}

/// At most this many arguments, and this many variables.
pub const MAX_ITEMS: usize = 64;
/// At most this many bytes in one argument or one variable's value.
pub const MAX_ITEM_BYTES: usize = 4096;
/// At most this many bytes in all arguments and variables together (names and values).
pub const MAX_TOTAL_BYTES: usize = 32 * 1024;
/// At most this many bytes in a variable's name.
pub const MAX_NAME_BYTES: usize = 128;

/// Variables the launched app must not get, with why. A name ending in `*` is a prefix.
/// Names compare without regard to case (no loader reads `ld_preload`, so refusing it costs
/// nothing, and no spelling slips through).
const REFUSED: &[(&str, &str)] = &[
    // dyld inserts or redirects libraries (DYLD_INSERT_LIBRARIES, DYLD_LIBRARY_PATH, …).
    (
        "DYLD_*",
        "makes the dynamic loader load libraries of the caller's choosing",
    ),
    // The same for XPC services the app starts (__XPC_DYLD_INSERT_LIBRARIES).
    (
        "__XPC_*",
        "is passed on to the app's XPC services, loader variables included",
    ),
    // glibc's ld.so: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT.
    (
        "LD_*",
        "makes the dynamic loader load libraries of the caller's choosing",
    ),
    (
        "GLIBC_TUNABLES",
        "changes how the C library's loader behaves",
    ),
    (
        "GCONV_PATH",
        "makes the C library load character-set modules from a chosen folder",
    ),
    // GTK loads these modules into every GTK app when it starts.
    ("GTK_MODULES", "loads GTK modules into the app"),
    ("GTK3_MODULES", "loads GTK modules into the app"),
    ("GTK_PATH", "makes GTK load modules from a chosen folder"),
    (
        "GTK_EXE_PREFIX",
        "makes GTK load modules from a chosen folder",
    ),
    (
        "GTK_IM_MODULE_FILE",
        "makes GTK load input-method modules from a chosen list",
    ),
    (
        "GDK_PIXBUF_MODULE*",
        "makes GDK load image loaders from a chosen place",
    ),
    // GIO loads every module in these folders.
    (
        "GIO_EXTRA_MODULES",
        "makes GIO load modules from a chosen folder",
    ),
    (
        "GIO_MODULE_DIR",
        "makes GIO load modules from a chosen folder",
    ),
    // GST_PLUGIN_PATH and GST_PLUGIN_SCANNER (a program GStreamer runs).
    (
        "GST_PLUGIN_*",
        "makes GStreamer load plugins or run a scanner of the caller's choosing",
    ),
    (
        "QT_PLUGIN_PATH",
        "makes Qt load plugins from a chosen folder",
    ),
    (
        "QT_QPA_PLATFORM_PLUGIN_PATH",
        "makes Qt load plugins from a chosen folder",
    ),
    (
        "QML*_IMPORT_PATH",
        "makes Qt load QML plugins from a chosen folder",
    ),
    // Interpreters apps are written in (the GTK test apps are Python).
    (
        "PYTHON*",
        "makes Python load or run code of the caller's choosing",
    ),
    (
        "PERL5*",
        "makes Perl load or run code of the caller's choosing",
    ),
    ("PERLLIB", "makes Perl load code from a chosen folder"),
    (
        "RUBY*",
        "makes Ruby load or run code of the caller's choosing",
    ),
    (
        "LUA_*",
        "makes Lua load or run code of the caller's choosing",
    ),
    (
        "NODE_OPTIONS",
        "makes Node (and Electron apps) load code of the caller's choosing",
    ),
    (
        "NODE_PATH",
        "makes Node (and Electron apps) load code from a chosen folder",
    ),
    (
        "ELECTRON_RUN_AS_NODE",
        "turns an Electron app into a Node interpreter",
    ),
    (
        "JAVA_TOOL_OPTIONS",
        "makes Java load agents of the caller's choosing",
    ),
    (
        "_JAVA_OPTIONS",
        "makes Java load agents of the caller's choosing",
    ),
    (
        "JDK_JAVA_OPTIONS",
        "makes Java load agents of the caller's choosing",
    ),
    (
        "OPENSSL_CONF",
        "makes OpenSSL load engines named in a chosen file",
    ),
    (
        "OPENSSL_ENGINES",
        "makes OpenSSL load engines from a chosen folder",
    ),
    // Shells that launcher scripts run read these.
    (
        "BASH_ENV",
        "makes a shell the app runs read a chosen file first",
    ),
    ("ENV", "makes a shell the app runs read a chosen file first"),
    ("BASH_FUNC_*", "replaces commands of a shell the app runs"),
    ("SHELLOPTS", "changes how a shell the app runs behaves"),
    // A launcher script finds its programs on PATH; on AT-SPI the program itself is looked
    // up there, which would start something other than what the app rules allowed.
    (
        "PATH",
        "changes which programs the app (and its launcher) start",
    ),
    // D-Bus's `unixexec:` transport runs a program; the bus is also how axgate sees the app.
    (
        "DBUS_*",
        "can make the app run a program (unixexec: transport) or leave its bus",
    ),
    (
        "AT_SPI_BUS_ADDRESS",
        "moves the app off the accessibility bus axgate reads",
    ),
    (
        "NO_AT_BRIDGE",
        "turns off the accessibility bridge axgate reads the app through",
    ),
    (
        "GTK_A11Y",
        "turns off the accessibility bridge axgate reads the app through",
    ),
    // macOS malloc debugging loads no code but writes logs where these say.
    (
        "MallocLogFile",
        "writes a log to a file of the caller's choosing",
    ),
    (
        "MallocStackLoggingDirectory",
        "writes logs to a folder of the caller's choosing",
    ),
];

/// Why a variable may not be given to a launched app, if it may not.
pub fn refused_variable(name: &str) -> Option<&'static str> {
    REFUSED.iter().find_map(|(pattern, why)| {
        let hit = match pattern.split_once('*') {
            Some((head, tail)) => {
                name.len() >= head.len() + tail.len()
                    && name.is_char_boundary(head.len())
                    && name[..head.len()].eq_ignore_ascii_case(head)
                    && name.is_char_boundary(name.len() - tail.len())
                    && name[name.len() - tail.len()..].eq_ignore_ascii_case(tail)
            }
            None => name.eq_ignore_ascii_case(pattern),
        };
        hit.then_some(*why)
    })
}

/// Checks a request's arguments and environment; the error names the argument (by position)
/// or the variable (by name), never a value.
pub fn check(request: &LaunchRequest) -> Result<(), AxError> {
    let refuse = |reason: String| AxError::InvalidValue {
        element: "the launch request".to_owned(),
        reason,
    };
    let (args, env) = (&request.arguments, &request.environment);
    if args.len() > MAX_ITEMS || env.len() > MAX_ITEMS {
        return Err(refuse(format!(
            "give at most {MAX_ITEMS} arguments and {MAX_ITEMS} environment variables"
        )));
    }
    let mut total = 0;
    for (i, arg) in args.iter().enumerate() {
        if arg.len() > MAX_ITEM_BYTES || arg.contains('\0') {
            return Err(refuse(format!(
                "argument {i} is over {MAX_ITEM_BYTES} bytes or holds a NUL byte; shorten it"
            )));
        }
        total += arg.len();
    }
    for (i, (name, value)) in env.iter().enumerate() {
        let well_formed = name.len() <= MAX_NAME_BYTES
            && name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !well_formed {
            // A malformed name may be anything the caller typed: name it by position.
            return Err(refuse(format!(
                "environment variable {i} has a name that is not [A-Za-z_][A-Za-z0-9_]* (at \
                 most {MAX_NAME_BYTES} bytes)"
            )));
        }
        if let Some(why) = refused_variable(name) {
            return Err(refuse(format!(
                "environment variable {name} is refused: it {why}; leave it out"
            )));
        }
        if env[..i].iter().any(|(n, _)| n == name) {
            return Err(refuse(format!(
                "environment variable {name} is given twice; give it once"
            )));
        }
        if value.len() > MAX_ITEM_BYTES || value.contains('\0') {
            return Err(refuse(format!(
                "the value of {name} is over {MAX_ITEM_BYTES} bytes or holds a NUL byte; \
                 shorten it"
            )));
        }
        total += name.len() + value.len();
    }
    if total > MAX_TOTAL_BYTES {
        return Err(refuse(format!(
            "arguments and environment hold {total} bytes; at most {MAX_TOTAL_BYTES} are \
             passed"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_env(pairs: &[(&str, &str)]) -> LaunchRequest {
        LaunchRequest {
            spec: "Notes".into(),
            arguments: Vec::new(),
            environment: pairs
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
        }
    }

    fn reason(request: &LaunchRequest) -> String {
        match check(request) {
            Err(AxError::InvalidValue { reason, .. }) => reason,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn code_loading_variables_are_refused_by_name_without_their_value() {
        for name in [
            "DYLD_INSERT_LIBRARIES",
            "DYLD_FRAMEWORK_PATH",
            "__XPC_DYLD_INSERT_LIBRARIES",
            "LD_PRELOAD",
            "ld_preload",
            "GTK_MODULES",
            "GTK3_MODULES",
            "GTK_PATH",
            "GIO_EXTRA_MODULES",
            "GIO_MODULE_DIR",
            "GST_PLUGIN_SCANNER",
            "GDK_PIXBUF_MODULEDIR",
            "PYTHONPATH",
            "PYTHONSTARTUP",
            "PERL5OPT",
            "RUBYOPT",
            "NODE_OPTIONS",
            "ELECTRON_RUN_AS_NODE",
            "QT_PLUGIN_PATH",
            "QML2_IMPORT_PATH",
            "BASH_FUNC_X",
            "PATH",
            "DBUS_SESSION_BUS_ADDRESS",
            "NO_AT_BRIDGE",
            "MallocLogFile",
        ] {
            let why = reason(&with_env(&[("LANG", "C"), (name, "/tmp/secret-value")]));
            assert!(why.contains(name), "{name}: {why}");
            assert!(!why.contains("secret-value"), "{name}: {why}");
        }
    }

    #[test]
    fn ordinary_variables_and_arguments_pass() {
        let mut request = with_env(&[
            ("LANG", "de_DE.UTF-8"),
            ("AXGATE_DEMO_FLAG", "1"),
            ("MallocScribble", "1"),
            ("HOME_PAGE", "x"),
            ("_private", "y"),
        ]);
        request.arguments = vec!["-NSDocumentRevisionsDebugMode".into(), "YES".into()];
        assert_eq!(check(&request), Ok(()));
        assert_eq!(check(&LaunchRequest::app("Notes")), Ok(()));
        assert!(!LaunchRequest::app("Notes").has_extras());
        assert!(request.has_extras());
    }

    #[test]
    fn malformed_names_are_named_by_position() {
        for bad in ["", "1ABC", "A-B", "A=B", "NAME WITH SPACE", "Ä"] {
            let why = reason(&with_env(&[("OK", "1"), (bad, "v")]));
            assert!(why.contains("variable 1 "), "{bad:?}: {why}");
        }
        let long = "N".repeat(MAX_NAME_BYTES + 1);
        assert!(reason(&with_env(&[(long.as_str(), "v")])).contains("variable 0 "));
    }

    #[test]
    fn sizes_counts_nul_bytes_and_repeats_are_bounded() {
        let mut many = LaunchRequest::app("Notes");
        many.arguments = vec!["a".into(); MAX_ITEMS + 1];
        assert!(reason(&many).contains("at most 64 arguments"));
        many.arguments = vec!["a".repeat(MAX_ITEM_BYTES + 1)];
        assert!(reason(&many).contains("argument 0 "));
        many.arguments = vec!["ok".into(), "a\0b".into()];
        assert!(reason(&many).contains("argument 1 "));
        many.arguments = vec!["a".repeat(MAX_ITEM_BYTES); 9];
        assert!(reason(&many).contains("at most 32768"));
        let why = reason(&with_env(&[("K", "1"), ("K", "2")]));
        assert!(why.contains("K is given twice"), "{why}");
        let big = "v".repeat(MAX_ITEM_BYTES + 1);
        assert!(reason(&with_env(&[("K", big.as_str())])).contains("value of K"));
    }
}
