//! The floor of the load harness: a bare axum server whose one route (`POST`/`GET` on any
//! path) answers `ok`. Binds 127.0.0.1:0 with TCP_NODELAY, prints `http://127.0.0.1:<port>/`
//! and serves until killed. Same runtime as axgate: tokio's multi-thread default.

use axum::Router;
use axum::routing::any;
use axum::serve::ListenerExt;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    println!("http://{addr}/");
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let app = Router::new().fallback(any(|| async { "ok" }));
    axum::serve(listener, app).await
}
