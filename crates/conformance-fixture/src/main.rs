//! `axgate-conformance-fixture`: serves the MCP conformance fixture at `/mcp` behind axgate's
//! HTTP layers, for running the official conformance suite by hand:
//!
//! ```text
//! cargo run -p axgate-conformance-fixture -- --bind 127.0.0.1:8742
//! npx @modelcontextprotocol/conformance server --url http://127.0.0.1:8742/mcp
//! ```
//!
//! The configuration comes from the same layers as `axgate serve` (a file, `AXGATE_*`
//! variables, `--bind`); Ctrl-C stops it.

use std::path::PathBuf;

use anyhow::Context as _;
use axgate::config::Layers;
use clap::Parser;

/// Serve the MCP conformance fixture (test tools only, no desktop access).
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Address to listen on (server.bind).
    #[arg(long, default_value = "127.0.0.1:8742")]
    bind: String,
    /// An axgate configuration file for everything else (auth, Host/Origin lists, limits).
    #[arg(long)]
    config: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("info"))
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    let mut layers = Layers::default();
    if let Some(path) = &args.config {
        layers.file(path);
    }
    layers.env(std::env::vars().filter(|(k, _)| k != "AXGATE_CONFIG"));
    layers.flag("server.bind", args.bind);
    let config = layers.build()?;
    let bind = config.server.bind;
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .with_context(|| format!("cannot listen on {bind}; pick another address with --bind"))?;
    let local = listener.local_addr()?;
    tracing::warn!(%local, "serving the MCP conformance fixture at http://{local}/mcp: test tools only, no desktop access");
    axgate_conformance_fixture::serve(
        listener,
        config,
        Box::pin(async {
            let _ = tokio::signal::ctrl_c().await;
        }),
    )
    .await?;
    Ok(())
}
