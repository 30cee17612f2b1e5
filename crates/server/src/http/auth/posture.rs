//! Network posture: the MCP listener drives this machine's apps, so it may only listen beyond
//! loopback when authentication is configured. Checked by `AppState::new` before anything binds.

use std::net::SocketAddr;

/// `Err` (naming the fixes) when `bind` is reachable from other machines and auth is off.
/// Loopback is `127.0.0.0/8` and `::1` (also IPv4-mapped); `0.0.0.0` and `::` are not.
pub fn check_exposure(bind: SocketAddr, auth_enabled: bool) -> Result<(), String> {
    if auth_enabled || bind.ip().to_canonical().is_loopback() {
        return Ok(());
    }
    Err(format!(
        "server.bind {bind} is not a loopback address and no authentication is configured: \
         anyone who can reach it could drive this machine's apps. Either bind to 127.0.0.1, \
         or configure [auth]: static tokens (`axgate token new --name NAME --scopes \
         axgate:read,axgate:act` prints the `tokens` entry) or an OAuth issuer (auth.issuer, \
         auth.jwks_uri and auth.audience)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_may_go_without_auth() {
        let open = |a: &str| check_exposure(a.parse().expect("addr"), false);
        assert!(open("127.0.0.1:8741").is_ok());
        assert!(open("127.9.9.9:1").is_ok());
        assert!(open("[::1]:8741").is_ok());
        assert!(open("[::ffff:127.0.0.1]:8741").is_ok());
        for exposed in [
            "0.0.0.0:8741",
            "[::]:8741",
            "192.168.1.20:8741",
            "[fe80::1]:1",
        ] {
            let err = open(exposed).expect_err(exposed);
            assert!(err.contains("axgate token new"), "{err}");
            assert!(err.contains("127.0.0.1"), "{err}");
        }
        assert!(check_exposure("0.0.0.0:8741".parse().expect("addr"), true).is_ok());
    }
}
