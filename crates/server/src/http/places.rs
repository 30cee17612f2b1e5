//! The open connections of a listener as its cap sees them (`http::conn`): whether each has
//! sent a request, has one in progress or idles, which source address it counts against
//! until a request on it is authenticated, and which one gives its place to a newcomer — at
//! the connection cap, or at an address's share of unauthenticated connections.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long a new connection may take to send its first request before a newcomer at the
/// cap may take its place.
pub const GRACE: Duration = Duration::from_millis(50);

/// What the cap knows of one connection's use.
#[derive(Default)]
pub(super) struct Use {
    /// Set when its first request arrived.
    served: AtomicBool,
    /// Set when a request on it was authenticated: from then on it no longer counts against
    /// its source address.
    authenticated: AtomicBool,
    /// Requests in progress on it, each until its response body ends.
    busy: AtomicUsize,
    /// When its last response ended.
    idle_since: Mutex<Option<Instant>>,
}

impl Use {
    /// Since when the connection has been idle after serving, if it is.
    fn idle(&self) -> Option<Instant> {
        if self.busy.load(Ordering::Acquire) > 0 {
            return None;
        }
        *self
            .idle_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// One request in progress on a connection; its end makes the connection idle.
pub(super) struct Busy(Arc<Use>);

impl Busy {
    pub(super) fn start(of: &Arc<Use>) -> Busy {
        of.served.store(true, Ordering::Relaxed);
        of.busy.fetch_add(1, Ordering::AcqRel);
        Busy(of.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        *self
            .0
            .idle_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Who a connection counts against before authentication: an IPv4 address, or the /64 an
/// IPv6 address is in (one host is commonly given a whole /64, so one address per host
/// would be no bound). An IPv4-mapped IPv6 address is its IPv4 address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Source {
    V4(Ipv4Addr),
    V6(u64),
}

impl Source {
    pub(super) fn of(ip: IpAddr) -> Source {
        match ip.to_canonical() {
            IpAddr::V4(v4) => Source::V4(v4),
            IpAddr::V6(v6) => Source::V6((v6.to_bits() >> 64) as u64),
        }
    }
}

/// One open connection as the cap sees it.
struct Open {
    id: u64,
    since: Instant,
    peer: IpAddr,
    /// The source it counts against: `None` once authenticated, or from a trusted proxy.
    source: Option<Source>,
    used: Arc<Use>,
    cut: CancellationToken,
}

impl Open {
    /// Sent no request within [`GRACE`] of opening.
    fn silent(&self) -> bool {
        !self.used.served.load(Ordering::Relaxed) && self.since.elapsed() >= GRACE
    }

    /// Since when it has had no request in progress, if that is [`GRACE`] or more.
    fn idle(&self) -> Option<Instant> {
        self.used.idle().filter(|since| since.elapsed() >= GRACE)
    }
}

/// The open connections, and per source the unauthenticated ones among them. The per-source
/// table holds only sources with such a connection open, so it never has more entries than
/// the listener has connections (`server.max_connections`; about 48 bytes each).
struct Table {
    list: Vec<Open>,
    sources: HashMap<Source, usize>,
}

impl Table {
    /// Removes the connection at `at`, and its count from its source.
    fn take(&mut self, at: usize) -> Open {
        let open = self.list.swap_remove(at);
        if let Some(source) = open.source {
            self.uncount(source);
        }
        open
    }

    fn uncount(&mut self, source: Source) {
        if let Some(count) = self.sources.get_mut(&source) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.sources.remove(&source);
            }
        }
    }

    /// Cuts the connection with `id`; whether one was cut.
    fn cut(&mut self, id: Option<u64>) -> bool {
        let Some(at) = id.and_then(|id| self.list.iter().position(|o| o.id == id)) else {
            return false;
        };
        self.take(at).cut.cancel();
        true
    }
}

/// The open connections, for finding one a newcomer may evict.
pub(super) struct Opens {
    next: AtomicU64,
    table: Mutex<Table>,
    /// Sources with an unauthenticated connection open.
    sources: prometheus::IntGauge,
}

impl Opens {
    pub(super) fn new(sources: prometheus::IntGauge) -> Opens {
        Opens {
            next: AtomicU64::new(0),
            table: Mutex::new(Table {
                list: Vec::new(),
                sources: HashMap::new(),
            }),
            sources,
        }
    }

    /// Adds a connection from `peer`, counted against its source unless `trusted`.
    pub(super) fn add(&self, peer: IpAddr, trusted: bool) -> (u64, Arc<Use>, CancellationToken) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (used, cut) = (Arc::new(Use::default()), CancellationToken::new());
        let source = (!trusted).then(|| Source::of(peer));
        let mut table = self.lock();
        if let Some(source) = source {
            *table.sources.entry(source).or_default() += 1;
        }
        table.list.push(Open {
            id,
            since: Instant::now(),
            peer,
            source,
            used: used.clone(),
            cut: cut.clone(),
        });
        self.settle(&table);
        (id, used, cut)
    }

    pub(super) fn remove(&self, id: u64) {
        let mut table = self.lock();
        if let Some(at) = table.list.iter().position(|o| o.id == id) {
            table.take(at);
        }
        self.settle(&table);
    }

    /// The connection `id` carried an authenticated request: it no longer counts against
    /// its source.
    fn authenticated(&self, id: u64) {
        let mut table = self.lock();
        let source = table
            .list
            .iter_mut()
            .find(|o| o.id == id)
            .and_then(|o| o.source.take());
        if let Some(source) = source {
            table.uncount(source);
        }
        self.settle(&table);
    }

    /// Whether `peer`'s source holds `share` unauthenticated connections or more.
    pub(super) fn at_share(&self, peer: IpAddr, share: usize) -> bool {
        let source = Source::of(peer);
        self.lock().sources.get(&source).copied().unwrap_or(0) >= share
    }

    /// At the per-source share: cuts the oldest of `peer`'s source's own unauthenticated
    /// connections that sent no request within [`GRACE`], else the one of them idle longest;
    /// never another source's. Whether one was cut.
    pub(super) fn evict_own(&self, peer: IpAddr) -> bool {
        let source = Some(Source::of(peer));
        let mut table = self.lock();
        let mine = || table.list.iter().filter(|o| o.source == source);
        let victim = mine()
            .filter(|o| o.silent())
            .min_by_key(|o| o.since)
            .map(|o| o.id)
            .or_else(|| {
                mine()
                    .filter_map(|o| o.idle().map(|since| (since, o.id)))
                    .min()
                    .map(|(_, id)| id)
            });
        let cut = table.cut(victim);
        self.settle(&table);
        cut
    }

    /// Cuts the oldest connection that sent no request within [`GRACE`], else the one idle
    /// longest (no request in progress for [`GRACE`]), one of `peer`'s first in each class;
    /// whether one was cut.
    pub(super) fn evict_for(&self, peer: IpAddr) -> bool {
        let mut table = self.lock();
        let list = &table.list;
        let victim = list
            .iter()
            .filter(|o| o.silent())
            .filter(|o| o.peer == peer)
            .min_by_key(|o| o.since)
            .or_else(|| list.iter().filter(|o| o.silent()).min_by_key(|o| o.since))
            .map(|o| o.id)
            .or_else(|| {
                let idle_of = |mine: bool| {
                    list.iter()
                        .filter(|o| !mine || o.peer == peer)
                        .filter_map(|o| o.idle().map(|since| (since, o.id)))
                        .min()
                        .map(|(_, id)| id)
                };
                idle_of(true).or_else(|| idle_of(false))
            });
        let cut = table.cut(victim);
        self.settle(&table);
        cut
    }

    /// The gauge of sources, after a change.
    fn settle(&self, table: &Table) {
        self.sources
            .set(i64::try_from(table.sources.len()).unwrap_or(i64::MAX));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The connection a request arrived on (in its extensions): the auth layer tells it when a
/// request on it is authenticated, so it stops counting against its source address.
#[derive(Clone)]
pub struct Connection {
    pub(super) id: u64,
    pub(super) opens: Arc<Opens>,
    pub(super) used: Arc<Use>,
}

impl Connection {
    /// A request on this connection was authenticated.
    pub fn authenticated(&self) {
        if !self.used.authenticated.swap(true, Ordering::AcqRel) {
            self.opens.authenticated(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_host_counts_by_its_64_and_a_mapped_ipv4_by_its_address() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(Source::of(a), Source::of(b));
        assert_ne!(Source::of(a), Source::of(c));
        let mapped: IpAddr = "::ffff:127.0.0.2".parse().unwrap();
        let v4: IpAddr = "127.0.0.2".parse().unwrap();
        assert_eq!(Source::of(mapped), Source::of(v4));
    }
}
