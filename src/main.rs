//! The `axgate` command line: `serve` runs the MCP server, `check` prints the backend's
//! readiness. The only place that uses `anyhow`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};

use axgate::ax::{Engine, EngineConfig, WorkerConfig};
use axgate::config::{Config, Layers, LogFormat};
use axgate::metrics::Metrics;
use axgate::server::{self, AppState};

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
    /// Serve MCP on /mcp (and /healthz) until SIGTERM or SIGINT.
    Serve(Common),
    /// Print the backend's readiness checks; exit non-zero when it cannot serve.
    Check(Common),
}

/// Options shared by the commands. Each can also come from the config file
/// (`[server] bind`, `[backend] kind`, …) and from `AXGATE_*` environment variables.
#[derive(Args)]
struct Common {
    /// TOML config file (see config/axgate.example.toml).
    #[arg(long, value_name = "FILE", env = "AXGATE_CONFIG")]
    config: Option<PathBuf>,
    /// Listen address, e.g. 127.0.0.1:8741 (server.bind).
    #[arg(long, value_name = "ADDR:PORT")]
    bind: Option<String>,
    /// auto, demo, atspi or macos (backend.kind).
    #[arg(long, value_name = "KIND")]
    backend: Option<String>,
    /// human or json (log.format).
    #[arg(long, value_name = "FORMAT")]
    log_format: Option<String>,
    /// A tracing filter such as info or axgate=debug (log.level).
    #[arg(long, value_name = "FILTER")]
    log_level: Option<String>,
}

impl Common {
    fn config(&self) -> anyhow::Result<Config> {
        let mut layers = Layers::default();
        if let Some(path) = &self.config {
            layers.file(path);
        }
        layers.env(std::env::vars().filter(|(k, _)| k != "AXGATE_CONFIG"));
        let flags = [
            ("server.bind", &self.bind),
            ("backend.kind", &self.backend),
            ("log.format", &self.log_format),
            ("log.level", &self.log_level),
        ];
        for (key, value) in flags {
            if let Some(value) = value {
                layers.flag(key, value.clone());
            }
        }
        Ok(layers.build()?)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = axgate::platform::run_main(move || match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("axgate: {error:#}");
            2
        }
    });
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    let (common, serve) = match &cli.command {
        Command::Serve(c) => (c, true),
        Command::Check(c) => (c, false),
    };
    let config = common.config()?;
    init_logging(&config);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("axgate-rt")
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let backend =
            axgate::platform::select(config.backend.choice).map_err(anyhow::Error::msg)?;
        let metrics = Metrics::new(prometheus::Registry::new())
            .context("cannot register the metric families")?;
        let engine = Engine::new(
            backend,
            EngineConfig {
                call_timeout: config.backend.call_timeout,
                worker: WorkerConfig {
                    strikes: config.backend.unresponsive_after,
                    probe_interval: config.backend.probe_interval,
                    ..WorkerConfig::default()
                },
                handle_cap: config.backend.handle_cap,
            },
            metrics.engine.clone(),
        );
        if serve {
            serve_until_signal(config, engine, metrics).await
        } else {
            check(engine).await
        }
    })
}

async fn check(engine: Arc<Engine>) -> anyhow::Result<i32> {
    let checks = engine.readiness().await;
    println!("backend: {}", engine.backend_name());
    let mut ready = true;
    for c in &checks {
        ready &= c.ok;
        if c.ok {
            println!("  ok    {}", c.name);
        } else {
            println!("  FAIL  {}: {}", c.name, c.detail);
        }
    }
    println!("{}", if ready { "ready" } else { "not ready" });
    Ok(if ready { 0 } else { 1 })
}

async fn serve_until_signal(
    config: Config,
    engine: Arc<Engine>,
    metrics: Metrics,
) -> anyhow::Result<i32> {
    let bind = config.server.bind;
    let backend = engine.backend_name();
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
    server::run(listener, state, shutdown_signal()).await?;
    tracing::info!("axgate stopped");
    Ok(0)
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

fn init_logging(config: &Config) {
    let filter = tracing_subscriber::EnvFilter::new(&config.log.level);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match config.log.format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
