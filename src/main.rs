//! The `axgate` command line: `serve` runs the MCP server, `check` prints the backend's
//! readiness, `audit verify` checks an audit trail, `token new` mints a static bearer token;
//! `call`, `test`, `apps`, `tree`, `find`, `click`, `type` and `screenshot` are the MCP client
//! (`axgate::client`), `completions` prints a shell's completion script.
//! The only place that uses `anyhow`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Args, CommandFactory as _, Parser, Subcommand};

use axgate::audit::{self, Audit, AuditEvent, Outcome};
use axgate::ax::Engine;
use axgate::ax::engine::engine_for;
use axgate::config::{AuditConfig, Config, Layers};
use axgate::metrics::Metrics;
use axgate::server::{self, AppState};

/// The allocator of the server: with glibc's malloc and free, allocation was a fifth of its
/// CPU under load, and `list_apps` at 32 connections runs 1.3–1.45× as many calls per second
/// with mimalloc (docs/PERFORMANCE.md, "Core under load"). On Linux `.cargo/config.toml`
/// turns off its eager commit of arenas, which kept freed memory resident (macOS never has it).
/// `--features system-alloc` keeps the system allocator instead, only for heap profilers
/// (valgrind's massif sees nothing of mimalloc's heap, which maps its own memory;
/// docs/PERFORMANCE.md, "Memory after load (issue 33)"). Never shipped.
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (`mi_option_purge_delay` in mimalloc.h, v2 and v3 alike).
#[cfg(not(feature = "system-alloc"))]
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Pages freed are given back to the system at once instead of after mimalloc's delay (1 s).
/// mimalloc purges a delayed page only when the thread that owns it next allocates or frees,
/// so a server idle after a load kept the load's freed pages resident: after 233,000 calls,
/// 84.1 MiB instead of 80.0, with no measurable difference in calls per second
/// (docs/PERFORMANCE.md, "Memory after load (issue 33)").
#[cfg(not(feature = "system-alloc"))]
#[allow(unsafe_code)]
fn purge_freed_pages_at_once() {
    // SAFETY: sets one of mimalloc's documented options to a documented value; it takes no
    // pointers and is safe to call from any thread at any time.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}

#[derive(Parser)]
#[command(
    name = "axgate",
    version,
    about = "MCP over Streamable HTTP for desktop accessibility automation"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve MCP on /mcp (and /healthz) until SIGTERM or SIGINT; SIGHUP reloads tokens,
    /// policy and the TLS certificate. With --stdio, one session on stdin/stdout for a local
    /// MCP host.
    Serve(ServeArgs),
    /// Print the backend's readiness checks; exit non-zero when it cannot serve.
    Check(Common),
    /// Work with the audit trail.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Static bearer tokens for `[auth] tokens`.
    #[command(subcommand)]
    Token(TokenCommand),
    /// macOS: record a running app's accessibility tree as an axgate-recording/1 file
    /// (docs/RECORDINGS.md), to attach to a bug report or replay anywhere with
    /// `serve --backend replay --recording FILE`. Secure text values are never recorded.
    Record(RecordArgs),
    #[command(flatten)]
    Client(axgate::client::args::ClientCommand),
    /// Print the completion script of a shell: `axgate completions bash > /etc/bash_completion.d/axgate`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Args)]
struct RecordArgs {
    /// The app: its name, bundle id or pid.
    app: String,
    /// Where to write the recording.
    #[arg(long, value_name = "FILE")]
    output: PathBuf,
    /// The most elements to record.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    max_nodes: usize,
    /// The most time to spend reading the app, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    timeout_secs: u64,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Print a fresh random token (first line) and the config entry holding its SHA-256.
    /// The token is shown once and stored nowhere; nothing is logged.
    New {
        /// The principal's name, shown in logs (letters, digits, '.', '_', '-').
        #[arg(long)]
        name: String,
        /// Comma-separated scopes: axgate:read, axgate:act, axgate:admin.
        #[arg(long, value_delimiter = ',', default_value = "axgate:read,axgate:act")]
        scopes: Vec<String>,
    },
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Check the hash chain of audit files.
    ///
    /// Give the files oldest first (rotated files <path>.1, <path>.2, …, then <path>), or
    /// --trail <path>. Exit 0 when intact, 1 at the first break (printed with its file and
    /// line), 2 when a file cannot be read. A torn last line (a crash mid-write) is a break
    /// until axgate reopens the trail, which cuts it away.
    Verify {
        /// The files, in chain order.
        #[arg(value_name = "FILE", required_unless_present = "trail")]
        files: Vec<PathBuf>,
        /// Check every file of the trail whose current file is PATH, in order.
        #[arg(long, value_name = "PATH", conflicts_with = "files")]
        trail: Option<PathBuf>,
        /// Accept a first line that chains from an earlier file that is not given.
        #[arg(long)]
        partial: bool,
        /// An anchor file (a copy of <path>.anchor taken earlier, or kept off the machine):
        /// the line whose hash it holds must be in the chain, so a cut tail is a break.
        #[arg(long, value_name = "FILE")]
        anchor: Option<PathBuf>,
    },
    /// Test helper: record COUNT events, printing "acked <i>" once each is durable.
    #[command(hide = true)]
    Stress {
        #[arg(long)]
        path: PathBuf,
        #[arg(long)]
        count: u64,
        #[arg(long, default_value_t = 64 << 20)]
        max_file_bytes: u64,
    },
}

#[derive(Args)]
struct ServeArgs {
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    serving: Serving,
    /// Speak MCP on stdin/stdout (one session, for a local MCP host that starts axgate)
    /// instead of HTTP. Logs go to stderr; the session ends when stdin closes.
    #[arg(long, conflicts_with = "bind")]
    stdio: bool,
}

/// Options that only serving reads (`check` does not offer them).
#[derive(Args, Clone, Default)]
struct Serving {
    /// Listen address, e.g. 127.0.0.1:8741 (server.bind).
    #[arg(long, value_name = "ADDR:PORT")]
    bind: Option<String>,
    /// Read-only mode: tools that change UI or app state are hidden and refused
    /// (policy.read_only).
    #[arg(long)]
    read_only: bool,
}

/// How `serve`/`check` run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Http,
    Stdio,
    Check,
}

/// Options shared by the commands. Each can also come from the config file
/// (`[server] bind`, `[backend] kind`, …) and from `AXGATE_*` environment variables.
#[derive(Args, Clone)]
struct Common {
    /// TOML config file (see config/axgate.example.toml).
    #[arg(long, value_name = "FILE", env = "AXGATE_CONFIG")]
    config: Option<PathBuf>,
    /// auto, demo, atspi, macos or replay (backend.kind).
    #[arg(long, value_name = "KIND")]
    backend: Option<String>,
    /// The axgate-recording/1 file the replay backend serves (backend.recording).
    #[arg(long, value_name = "FILE")]
    recording: Option<String>,
    /// human or json (log.format).
    #[arg(long, value_name = "FORMAT")]
    log_format: Option<String>,
    /// A tracing filter such as info or axgate=debug (log.level).
    #[arg(long, value_name = "FILTER")]
    log_level: Option<String>,
}

impl Common {
    /// The configuration: file, then `AXGATE_*` variables, then these flags and `serving`'s.
    fn config(&self, serving: &Serving) -> anyhow::Result<Config> {
        let mut layers = Layers::default();
        if let Some(path) = &self.config {
            layers.file(path);
        }
        layers.env(std::env::vars().filter(|(k, _)| k != "AXGATE_CONFIG"));
        let flags = [
            ("server.bind", &serving.bind),
            ("backend.kind", &self.backend),
            ("backend.recording", &self.recording),
            ("log.format", &self.log_format),
            ("log.level", &self.log_level),
        ];
        for (key, value) in flags {
            if let Some(value) = value {
                layers.flag(key, value.clone());
            }
        }
        if serving.read_only {
            layers.flag("policy.read_only", "true".into());
        }
        Ok(layers.build()?)
    }
}

fn main() -> ExitCode {
    #[cfg(not(feature = "system-alloc"))]
    purge_freed_pages_at_once();
    let cli = match Cli::parse().command {
        // The client needs no accessibility main loop: it only speaks HTTP.
        Command::Client(command) => return ExitCode::from(axgate::client::commands::run(command)),
        Command::Completions { shell } => return completions(shell),
        command => Cli { command },
    };
    let code = axgate::platform::run_main(move || match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("axgate: {error:#}");
            2
        }
    });
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// `axgate completions SHELL`: the script, written whole, so a reader that leaves early
/// (`| head`) ends it quietly with 141 like any writer to a closed pipe, never a panic.
fn completions(shell: clap_complete::Shell) -> ExitCode {
    use std::io::Write as _;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "axgate", &mut script);
    let mut out = std::io::stdout().lock();
    match out.write_all(&script).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let error = axgate::client::ClientError::stdout(&e);
            if !matches!(error, axgate::client::ClientError::Closed) {
                eprintln!("axgate: {error}");
            }
            ExitCode::from(error.exit_code())
        }
    }
}

/// `axgate record`: reads the app (macOS only), writes the file, says how much it holds.
fn record_command(args: &RecordArgs) -> anyhow::Result<i32> {
    let time = std::time::Duration::from_secs(args.timeout_secs.max(1));
    let (text, summary) = axgate::platform::record_app(&args.app, args.max_nodes.max(1), time)
        .map_err(anyhow::Error::msg)?;
    std::fs::write(&args.output, text)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    println!(
        "recorded {} elements to {}{}",
        summary.nodes,
        args.output.display(),
        if summary.truncated {
            " (stopped at --max-nodes or --timeout-secs, or some elements did not answer)"
        } else {
            ""
        }
    );
    Ok(0)
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    let no_serving = Serving::default();
    let (common, serving, mode) = match &cli.command {
        Command::Serve(s) if s.stdio => (&s.common, &s.serving, Mode::Stdio),
        Command::Serve(s) => (&s.common, &s.serving, Mode::Http),
        Command::Check(c) => (c, &no_serving, Mode::Check),
        Command::Audit(command) => return audit_command(command),
        Command::Token(command) => return token_command(command),
        Command::Record(args) => return record_command(args),
        Command::Client(_) | Command::Completions { .. } => unreachable!("handled in main"),
    };
    let config = common.config(serving)?;
    init_logging(&config);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("axgate-rt")
        .build()
        .context("cannot start the async runtime")?;
    let code = runtime.block_on(async move {
        let selected = axgate::platform::select(&config.backend).map_err(anyhow::Error::msg)?;
        let backend = selected.backend;
        let metrics = Metrics::new(prometheus::Registry::new())
            .context("cannot register the metric families")?;
        let engine = engine_for(backend, &config.backend, metrics.engine.clone());
        engine.note_backend_reason(selected.reason);
        match mode {
            Mode::Http => {
                let (common, serving) = (common.clone(), serving.clone());
                serve_until_signal(config, engine, metrics, move || common.config(&serving)).await
            }
            Mode::Stdio => serve_stdio(config, engine, metrics).await,
            Mode::Check => check(engine).await,
        }
    });
    if mode == Mode::Stdio {
        // A blocking read of stdin (the transport's fallback off Linux) cannot be cancelled:
        // do not wait for it when a signal ended the stdio session.
        runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    }
    code
}

/// `serve --stdio`: one session on stdin/stdout until stdin closes or a signal.
async fn serve_stdio(config: Config, engine: Arc<Engine>, metrics: Metrics) -> anyhow::Result<i32> {
    if config.auth.enabled() {
        tracing::info!("[auth] applies to HTTP only; on stdio the caller is the local user");
    }
    let ended = axgate::stdio::serve(&config, engine, metrics, Box::pin(shutdown_signal())).await?;
    tracing::info!(?ended, "axgate stopped");
    Ok(0)
}

fn audit_command(command: &AuditCommand) -> anyhow::Result<i32> {
    match command {
        AuditCommand::Verify {
            files,
            trail,
            partial,
            anchor,
        } => {
            let files = match trail {
                Some(path) => audit::trail_files(path)
                    .with_context(|| format!("cannot list the files of {}", path.display()))?,
                None => files.clone(),
            };
            anyhow::ensure!(!files.is_empty(), "no audit files found");
            let anchor = anchor
                .as_deref()
                .map(audit::verify::read_anchor)
                .transpose()?;
            let options = audit::verify::VerifyOptions {
                partial: *partial,
                anchor,
            };
            let report = audit::verify::verify(&files, options)?;
            print!("{report}");
            Ok(if report.intact() { 0 } else { 1 })
        }
        AuditCommand::Stress {
            path,
            count,
            max_file_bytes,
        } => {
            use std::io::Write as _;
            let config = AuditConfig {
                max_file_bytes: *max_file_bytes,
                ..AuditConfig::at(path.clone())
            };
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .context("cannot start the async runtime")?;
            runtime.block_on(async {
                let audit = Audit::open(&config, None)?.context("no audit path")?;
                let mut stdout = std::io::stdout().lock();
                for i in 0..*count {
                    let mut event = AuditEvent::new("stress", Outcome::Ok);
                    event.target = Some(format!("stress/{i}"));
                    audit.record(event).await?;
                    writeln!(stdout, "acked {i}")?;
                    stdout.flush()?;
                }
                Ok(0)
            })
        }
    }
}

fn token_command(command: &TokenCommand) -> anyhow::Result<i32> {
    use axgate::http::auth::{Scope, tokens};
    let TokenCommand::New { name, scopes } = command;
    axgate::identity::check_name(name).map_err(anyhow::Error::msg)?;
    let scopes = scopes
        .iter()
        .map(|s| s.parse::<Scope>())
        .collect::<Result<_, _>>()?;
    let token = tokens::generate().context("cannot read the OS random number generator")?;
    print!("{}", tokens::new_token_output(&token, name, &scopes));
    Ok(0)
}

async fn check(engine: Arc<Engine>) -> anyhow::Result<i32> {
    let checks = engine.readiness().await;
    println!(
        "backend: {} ({})",
        engine.backend_name(),
        engine.backend_reason().unwrap_or("chosen by the caller")
    );
    let names = |list: Vec<axgate::ax::Capability>| {
        let names: Vec<&str> = list.into_iter().map(|c| c.as_str()).collect();
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    };
    let caps = engine.capabilities();
    println!("capabilities: {}", names(caps.present()));
    println!("lacks: {}", names(caps.missing()));
    // A failing gate makes the machine not ready (exit 1); an advisory is printed and the
    // machine is still ready, as `/readyz` says.
    let mut ready = true;
    let mut advisories = 0;
    for c in &checks {
        ready &= !c.blocks();
        match (c.ok, c.class) {
            (true, _) => println!("  ok    {}", c.name),
            (false, axgate::ax::CheckClass::Gate) => println!("  FAIL  {}: {}", c.name, c.detail),
            (false, axgate::ax::CheckClass::Advisory) => {
                advisories += 1;
                println!("  ADVISE {}: {}", c.name, c.detail);
            }
        }
    }
    match (ready, advisories) {
        (false, _) => println!("not ready"),
        (true, 0) => println!("ready"),
        (true, n) => println!("ready, with {n} advisory(ies)"),
    }
    Ok(if ready { 0 } else { 1 })
}

async fn serve_until_signal(
    config: Config,
    engine: Arc<Engine>,
    metrics: Metrics,
    reload: impl Fn() -> anyhow::Result<Config> + Send + 'static,
) -> anyhow::Result<i32> {
    let bind = config.server.bind;
    let backend = engine.backend_name();
    // launchd and many shells give 256 open files; each client connection needs one.
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => tracing::debug!(limit, "open-file limit"),
        Err(error) => tracing::warn!(%error, "cannot raise the open-file limit"),
    }
    let state = AppState::new(config, engine, metrics).map_err(|errors| {
        anyhow::anyhow!("invalid configuration:\n  - {}", errors.join("\n  - "))
    })?;
    let listener = tokio::net::TcpListener::bind(bind).await.with_context(|| {
        format!(
            "cannot listen on {bind}; is another axgate running? Use --bind to pick another address"
        )
    })?;
    let local = listener.local_addr()?;
    tracing::info!(%local, backend, "axgate serving MCP at http://{local}/mcp");
    tokio::spawn(reload_on_hangup(state.clone(), reload));
    tokio::spawn(drain_on_signals(state.fleet.clone()));
    server::run(listener, state, Box::pin(shutdown_signal())).await?;
    tracing::info!("axgate stopped");
    Ok(0)
}

/// On each SIGHUP: reads the configuration again (file, environment, flags) and applies
/// tokens and policy (`AppState::reload`). A bad file changes nothing and says why.
async fn reload_on_hangup(
    state: AppState,
    load: impl Fn() -> anyhow::Result<Config> + Send + 'static,
) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut hangups) = signal(SignalKind::hangup()) else {
            tracing::warn!("cannot listen for SIGHUP; configuration reload is unavailable");
            return;
        };
        while hangups.recv().await.is_some() {
            let applied = load()
                .map_err(|e| format!("{e:#}"))
                .and_then(|config| state.reload(&config));
            match applied {
                Ok(changed) if changed.is_empty() => {
                    tracing::info!("SIGHUP: configuration reloaded; nothing changed")
                }
                Ok(changed) => tracing::info!(?changed, "SIGHUP: configuration reloaded"),
                Err(error) => tracing::error!(
                    %error,
                    "SIGHUP: configuration not reloaded; the running configuration stays"
                ),
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (state, load);
    }
}

/// SIGUSR1 starts draining (balancers send new sessions elsewhere, current ones finish),
/// SIGUSR2 ends it: for an upgrade script that cannot hold an admin token.
async fn drain_on_signals(fleet: Arc<axgate::fleet::Fleet>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut drain), Ok(mut undrain)) = (
            signal(SignalKind::user_defined1()),
            signal(SignalKind::user_defined2()),
        ) else {
            tracing::warn!("cannot listen for SIGUSR1/SIGUSR2; drain with set_draining instead");
            return;
        };
        loop {
            let on = tokio::select! {
                Some(()) = drain.recv() => true,
                Some(()) = undrain.recv() => false,
                else => return,
            };
            tracing::info!(
                signal = if on { "SIGUSR1" } else { "SIGUSR2" },
                "drain signal"
            );
            fleet.set_draining(on);
        }
    }
    #[cfg(not(unix))]
    {
        let _ = fleet;
    }
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

/// Logging by `log.level` and `log.format`; rmcp's own lines are capped and scrubbed
/// whatever the level (`axgate::logging`).
fn init_logging(config: &Config) {
    axgate::logging::init(&config.log.level, config.log.format);
}
