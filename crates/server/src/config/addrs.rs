//! `server.trusted_proxies`: addresses and CIDR prefixes (`10.0.0.5`, `10.1.0.0/16`,
//! `2001:db8::/48`) whose connections are exempt from the per-address share of
//! unauthenticated connections (`http::conn`): a load balancer's, whose every connection
//! comes from one address.

use std::fmt;
use std::net::IpAddr;

/// One address, or a prefix of `len` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrPrefix {
    addr: IpAddr,
    len: u8,
}

impl AddrPrefix {
    /// `addr` or `addr/len`; an IPv4-mapped IPv6 address is its IPv4 address.
    pub fn parse(text: &str) -> Result<AddrPrefix, String> {
        let text = text.trim();
        let (addr, len) = match text.split_once('/') {
            Some((addr, len)) => (addr, Some(len)),
            None => (text, None),
        };
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| format!("{text:?} is not an IP address or address/prefix-length"))?;
        let addr = addr.to_canonical();
        let bits = if addr.is_ipv4() { 32 } else { 128 };
        let len = match len {
            None => bits,
            Some(len) => match len.parse::<u8>() {
                Ok(len) if len <= bits => len,
                _ => return Err(format!("{text:?}: the prefix length must be 0..={bits}")),
            },
        };
        Ok(AddrPrefix { addr, len })
    }

    /// Whether `ip` is in the prefix.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.len)).unwrap_or(0);
                net.to_bits() & mask == ip.to_bits() & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.len))
                    .unwrap_or(0);
                net.to_bits() & mask == ip.to_bits() & mask
            }
            _ => false,
        }
    }
}

impl fmt::Display for AddrPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn addresses_and_prefixes_match_what_they_cover() {
        let one = AddrPrefix::parse("10.0.0.5").unwrap();
        assert!(one.contains(ip("10.0.0.5")));
        assert!(!one.contains(ip("10.0.0.6")));
        assert!(
            one.contains(ip("::ffff:10.0.0.5")),
            "a mapped address is its IPv4"
        );
        let net = AddrPrefix::parse("10.1.0.0/16").unwrap();
        assert!(net.contains(ip("10.1.255.3")));
        assert!(!net.contains(ip("10.2.0.1")));
        let all = AddrPrefix::parse("0.0.0.0/0").unwrap();
        assert!(all.contains(ip("192.0.2.1")));
        assert!(
            !all.contains(ip("2001:db8::1")),
            "IPv4 prefixes never match IPv6"
        );
        let v6 = AddrPrefix::parse("2001:db8::/48").unwrap();
        assert!(v6.contains(ip("2001:db8:0:ffff::1")));
        assert!(!v6.contains(ip("2001:db8:1::1")));
    }

    #[test]
    fn a_bad_entry_is_named() {
        for bad in ["10.0.0.0/33", "proxy.local", "10.0.0.0/x", "::/129"] {
            let error = AddrPrefix::parse(bad).unwrap_err();
            assert!(error.contains(bad), "{error}");
        }
    }
}
