//! TLS on the MCP listener: HTTPS with a certificate from config (rustls, ring), plain HTTP
//! refused on that port, and a certificate reload (what SIGHUP runs) that serves the new
//! certificate from the next handshake while a broken file keeps the old one.

use std::path::{Path, PathBuf};

use crate::support::{PROTOCOL, TestServer, config};
use serde_json::json;

/// A fresh self-signed certificate for 127.0.0.1, as PEM (certificate, key).
fn certificate() -> (String, String) {
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()])
        .expect("self-signed certificate");
    (cert.cert.pem(), cert.key_pair.serialize_pem())
}

fn write(dir: &Path, (cert, key): &(String, String)) -> (PathBuf, PathBuf) {
    let (c, k) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&c, cert).unwrap();
    std::fs::write(&k, key).unwrap();
    (c, k)
}

/// A client trusting only `cert`; returns the DER of the certificate the server showed.
async fn handshake(url: &str, cert: &str) -> Result<Vec<u8>, reqwest::Error> {
    let client = reqwest::Client::builder()
        .use_rustls_tls()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(cert.as_bytes()).unwrap())
        .tls_info(true)
        .build()
        .expect("client");
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "tls-test", "version": "1"}}});
    let resp = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
        .send()
        .await?;
    assert_eq!(resp.status(), 200, "initialize over TLS");
    let info = resp
        .extensions()
        .get::<reqwest::tls::TlsInfo>()
        .expect("TLS info")
        .peer_certificate()
        .expect("a peer certificate")
        .to_vec();
    Ok(info)
}

fn der(pem: &str) -> Vec<u8> {
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    base64::Engine::decode(&base64::engine::general_purpose::STANDARD, body).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_serves_the_configured_certificate_and_reloads_it() {
    let dir = tempfile::tempdir().unwrap();
    let first = certificate();
    let (cert, key) = write(dir.path(), &first);
    let toml = format!(
        "[server]\ntls_cert = {:?}\ntls_key = {:?}\n",
        cert.display().to_string(),
        key.display().to_string()
    );
    let server = TestServer::with_config(config(&toml)).await;
    let url = format!("https://127.0.0.1:{}/mcp", server.addr.port());

    let shown = handshake(&url, &first.0).await.expect("TLS handshake");
    assert_eq!(shown, der(&first.0));
    let plain = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{}/healthz", server.addr.port()))
        .send()
        .await;
    assert!(
        plain.is_err() || plain.is_ok_and(|r| !r.status().is_success()),
        "plain HTTP is not served on the TLS port"
    );

    // A new certificate in the same files: served from the next handshake.
    let second = certificate();
    write(dir.path(), &second);
    let changed = server.state.reload(&config(&toml)).expect("reload");
    assert!(changed.contains(&"tls"), "{changed:?}");
    let shown = handshake(&url, &second.0).await.expect("new certificate");
    assert_eq!(shown, der(&second.0));
    assert!(
        handshake(&url, &first.0).await.is_err(),
        "the old certificate is no longer served"
    );

    // A broken file changes nothing.
    std::fs::write(&cert, "not a certificate").unwrap();
    let err = server.state.reload(&config(&toml)).unwrap_err();
    assert!(err.contains("server.tls_cert"), "{err}");
    assert_eq!(
        handshake(&url, &second.0).await.expect("still served"),
        der(&second.0)
    );
}

#[tokio::test]
async fn tls_settings_are_checked_at_start() {
    let mut layers = axgate::config::Layers::default();
    layers.toml_text("[server]\ntls_cert = \"/nonexistent/cert.pem\"\n", "t");
    let err = layers.build().unwrap_err().to_string();
    assert!(
        err.contains("server.tls_cert and server.tls_key go together"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let (cert, _) = write(dir.path(), &certificate());
    let (_, other_key) = certificate();
    let key = dir.path().join("other.pem");
    std::fs::write(&key, other_key).unwrap();
    let files = axgate::config::TlsFiles { cert, key };
    let err = axgate::http::tls::Tls::load(&files)
        .err()
        .expect("mismatched pair");
    assert!(err.contains("do not make a pair"), "{err}");
    let missing = axgate::config::TlsFiles {
        cert: dir.path().join("none.pem"),
        key: dir.path().join("none.key"),
    };
    let err = axgate::http::tls::Tls::load(&missing)
        .err()
        .expect("missing file");
    assert!(err.contains("server.tls_cert"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_tls_on_the_metadata_and_challenges_say_https() {
    let dir = tempfile::tempdir().unwrap();
    let pem = certificate();
    let (cert, key) = write(dir.path(), &pem);
    let token = axgate::http::auth::tokens::generate().expect("token");
    let toml = format!(
        "[server]\ntls_cert = {:?}\ntls_key = {:?}\n[auth]\ntokens = [{{ name = \"ci\", sha256 = \"{}\", scopes = [\"axgate:read\"] }}]\n",
        cert.display().to_string(),
        key.display().to_string(),
        axgate::http::auth::tokens::hex(&axgate::http::auth::tokens::sha256(&token)),
    );
    let server = TestServer::with_config(config(&toml)).await;
    let origin = format!("https://127.0.0.1:{}", server.addr.port());
    let client = reqwest::Client::builder()
        .use_rustls_tls()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(pem.0.as_bytes()).unwrap())
        .build()
        .expect("client");
    // No auth.audience: the resource is derived from Host, with the listener's scheme.
    let doc: serde_json::Value = client
        .get(format!("{origin}/.well-known/oauth-protected-resource/mcp"))
        .send()
        .await
        .expect("metadata")
        .json()
        .await
        .expect("json");
    assert_eq!(doc["resource"], format!("{origin}/mcp"));
    let refused = client
        .post(format!("{origin}/mcp"))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .expect("post");
    assert_eq!(refused.status(), 401);
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\""
        )),
        "{challenge}"
    );
}
