//! TLS for the MCP listener: rustls with the `ring` provider, a certificate chain and key
//! from PEM files (`server.tls_cert`, `server.tls_key`). The files are read again on
//! SIGHUP and the new certificate serves the next handshake; a bad file keeps the old one.

use std::path::Path;
use std::sync::Arc;

use axum_server::tls_rustls::RustlsConfig;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::config::TlsFiles;

/// The live TLS configuration of the listener.
pub struct Tls {
    files: TlsFiles,
    config: RustlsConfig,
}

impl Tls {
    /// Loads the files; the error names the file and what is wrong with it.
    pub fn load(files: &TlsFiles) -> Result<Tls, String> {
        Ok(Tls {
            config: RustlsConfig::from_config(server_config(files)?),
            files: files.clone(),
        })
    }

    /// Reads the files again and serves the new certificate from the next handshake.
    pub fn reload(&self) -> Result<(), String> {
        self.config.reload_from_config(server_config(&self.files)?);
        Ok(())
    }

    pub fn files(&self) -> &TlsFiles {
        &self.files
    }

    /// The handle axum-server's acceptor reads the current configuration from.
    pub fn rustls(&self) -> RustlsConfig {
        self.config.clone()
    }
}

fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| format!("server.tls_cert {}: {e}", path.display()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("server.tls_cert {}: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "server.tls_cert {}: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)",
            path.display()
        ));
    }
    Ok(certs)
}

fn server_config(files: &TlsFiles) -> Result<Arc<ServerConfig>, String> {
    let certs = certificates(&files.cert)?;
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| {
        format!(
            "server.tls_key {}: {e} (expected a PEM private key: PKCS#8, PKCS#1 or SEC1)",
            files.key.display()
        )
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| format!("server.tls_cert and server.tls_key do not make a pair: {e}"))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
