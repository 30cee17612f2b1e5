//! The machine's capacity as a balancer sees it, separate from its health: `ready` (takes
//! new sessions), `busy` (held in exclusive mode, or at `sessions.max`: serves its sessions,
//! takes no new ones) and `drain` (set by `fleet.drain`, SIGUSR1 or the `set_draining` tool:
//! finishes its sessions, takes no new ones). Health stays `/readyz`: an unhealthy machine
//! takes nothing, whatever its capacity says.
//!
//! Exclusive mode (`fleet.exclusive`): the first session of a principal that may act
//! (`axgate:act`) holds the machine until it ends (DELETE, idle expiry, `end_session`) or
//! until its holder has not acted for `fleet.max_hold_secs` (pings and reads do not renew
//! it, so a read-only token can neither take the machine nor keep it); while it does,
//! [`Fleet::admit_session`] refuses other `initialize` requests, naming the holder's session
//! tag (never its id) and the time left. The hold is taken when the `initialize` is
//! admitted, before rmcp creates the session, so two simultaneous `initialize` requests
//! cannot both win; it is bound to the session id once the response carries it, and given
//! back when the request ends without one. A principal without `axgate:act` gets 403: it
//! could never use the machine it would hold.
//!
//! Admin principals (`axgate:admin`) are never locked out of the admin tools: their
//! `initialize` while the machine is held opens a session that does not hold it, and their
//! admin tool calls (`end_session`, `set_draining`, `list_sessions`) pass, in a session or
//! sessionless. Any other request of a principal other than the holder's while it holds
//! the machine is refused ([`Fleet::admit_request`]), so a session left over from an
//! earlier hold cannot act beside the new holder.
//!
//! Sessionless (2026-07-28) requests carry no session and never end one, so they cannot
//! hold the machine: in exclusive mode they are served for the holder's principal (the
//! same job may mix both) and while nobody holds it, and refused (503) for any other
//! principal while a session holds it. While draining they are refused too, except
//! `server/discover`, `ping` and admin tools, which touch no app.
//!
//! The HAProxy side (`agent`): one word per connection on `fleet.agent_listen`, `ready` or
//! `drain`. HAProxy's agent-check `drain` keeps sticky sessions flowing to the server while
//! new ones go elsewhere, which is exactly busy and drain (docs/FLEET.md).

pub mod agent;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axgate_parse::identity::{Principal, Scope};

use crate::audit::session_tag;
use crate::config::FleetConfig;
use crate::metrics::Metrics;
use crate::session::{Owner, SessionRegistry};

/// What a balancer is told about taking new sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capacity {
    Ready,
    Busy,
    Drain,
}

impl Capacity {
    pub const ALL: [Capacity; 3] = [Capacity::Ready, Capacity::Busy, Capacity::Drain];

    /// The `state` label of `axgate_capacity_state`, and the word in tool results.
    pub fn label(self) -> &'static str {
        match self {
            Capacity::Ready => "ready",
            Capacity::Busy => "busy",
            Capacity::Drain => "drain",
        }
    }

    /// The agent-check word: HAProxy's `drain` (no new connections but those that
    /// persistence sends) is what both busy and drain mean.
    pub fn agent_word(self) -> &'static str {
        match self {
            Capacity::Ready => "ready",
            Capacity::Busy | Capacity::Drain => "drain",
        }
    }
}

/// What a principal may do with the machine in exclusive mode: take it (`axgate:act`),
/// and reach the admin tools while another holds it (`axgate:admin`). Without
/// authentication every caller may take it, and none passes as an admin (all callers are
/// then one principal, so the holder's rules already let each of them through).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rights {
    pub act: bool,
    pub admin: bool,
}

impl Rights {
    pub fn of(principal: Option<&Principal>) -> Rights {
        principal.map_or(
            Rights {
                act: true,
                admin: false,
            },
            |p| Rights {
                act: p.allows(Scope::Act),
                admin: p.allows(Scope::Admin),
            },
        )
    }
}

/// Why a new session or a sessionless request was refused (503 with `Retry-After`, but
/// [`Refusal::NeedsAct`]: 403).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    Draining,
    /// Another session holds the machine: its tag, and the seconds before the hold ends
    /// unless its holder acts.
    Held(String, u64),
    /// Another client's `initialize` is being answered and will hold the machine.
    Initializing,
    /// Exclusive mode, and this principal may not act: it may not take the machine.
    NeedsAct,
}

impl Refusal {
    /// The JSON-RPC error message: what happened and what to do.
    pub fn message(&self) -> String {
        match self {
            Refusal::Draining => "This machine is draining (fleet.drain, SIGUSR1 or \
                 set_draining): it finishes its current sessions and takes no new ones. Retry \
                 after Retry-After through the balancer, or use another machine"
                .into(),
            Refusal::Held(tag, left) => format!(
                "This machine is held exclusively by session {tag} (fleet.exclusive): it takes \
                 no other session until that one ends (DELETE, idle expiry or end_session), \
                 at the latest in {left} s unless it acts (fleet.max_hold_secs). Retry after \
                 Retry-After through the balancer, or use another machine"
            ),
            Refusal::NeedsAct => "This machine runs in exclusive mode (fleet.exclusive): a \
                 session holds it, and taking it needs the axgate:act scope, which this token \
                 lacks. Use a token with axgate:act, or a machine without fleet.exclusive"
                .into(),
            Refusal::Initializing => "This machine is being taken by another client's \
                 initialize (fleet.exclusive). Retry after Retry-After through the balancer, \
                 or use another machine"
                .into(),
        }
    }
}

/// Who holds the machine in exclusive mode.
struct Holder {
    /// `None` while the holder's `initialize` is being answered.
    session: Option<String>,
    owner: Option<Owner>,
    since: SystemTime,
    /// When the holder last acted (or took the machine).
    renewed: Instant,
}

/// The capacity state of this machine; one per server.
pub struct Fleet {
    exclusive: bool,
    retry_after: Duration,
    max_hold: Duration,
    draining: AtomicBool,
    holder: Mutex<Option<Holder>>,
    registry: Arc<SessionRegistry>,
    metrics: Metrics,
    agent: OnceLock<std::net::SocketAddr>,
}

/// An admitted `initialize`. In exclusive mode it holds the machine until [`Admission::bind`]
/// names the session; dropped unbound (the request failed or was abandoned), it gives the
/// machine back.
pub struct Admission {
    fleet: Option<Arc<Fleet>>,
}

impl Admission {
    /// The admitted `initialize` created `session`: it holds the machine from now on.
    pub fn bind(mut self, session: &str) {
        if let Some(fleet) = self.fleet.take() {
            if let Some(holder) = fleet.lock().as_mut() {
                holder.session = Some(session.to_owned());
                tracing::info!(session = %session_tag(session), "exclusive: the session holds this machine");
            }
            fleet.record();
        }
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        if let Some(fleet) = self.fleet.take() {
            let mut holder = fleet.lock();
            if holder.as_ref().is_some_and(|h| h.session.is_none()) {
                *holder = None;
            }
            drop(holder);
            fleet.record();
        }
    }
}

impl Fleet {
    pub fn new(config: &FleetConfig, registry: Arc<SessionRegistry>, metrics: Metrics) -> Self {
        let fleet = Fleet {
            exclusive: config.exclusive,
            retry_after: config.retry_after,
            max_hold: config.max_hold,
            draining: AtomicBool::new(config.drain),
            holder: Mutex::new(None),
            registry,
            metrics,
            agent: OnceLock::new(),
        };
        if config.drain {
            tracing::info!("draining from the start (fleet.drain): no new sessions");
        }
        fleet.record();
        fleet
    }

    fn lock(&self) -> MutexGuard<'_, Option<Holder>> {
        self.holder.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The holder, forgetting one whose session ended by a path that did not say so (a
    /// worker that quit on its own), and ending a hold its holder has not renewed by acting
    /// within `fleet.max_hold_secs` (the session lives on, without the machine).
    fn holder(&self) -> MutexGuard<'_, Option<Holder>> {
        let mut holder = self.lock();
        if let Some(Holder {
            session: Some(id),
            renewed,
            ..
        }) = holder.as_ref()
        {
            if !self.registry.contains(id) {
                tracing::info!(session = %session_tag(id), "exclusive: the holding session ended; this machine is free");
                *holder = None;
            } else if renewed.elapsed() >= self.max_hold {
                tracing::info!(session = %session_tag(id), max_hold_secs = self.max_hold.as_secs(), "exclusive: the holder did not act within fleet.max_hold_secs; this machine is free");
                *holder = None;
            }
        }
        holder
    }

    /// The refusal naming the current holder and the time its hold has left.
    fn held_by(&self, h: &Holder) -> Refusal {
        match &h.session {
            Some(id) => Refusal::Held(session_tag(id), self.left(h)),
            None => Refusal::Initializing,
        }
    }

    /// Whole seconds the hold has left, rounded up (a hold with time left never says 0).
    fn left(&self, h: &Holder) -> u64 {
        let left = self.max_hold.saturating_sub(h.renewed.elapsed());
        left.as_secs() + u64::from(left.subsec_nanos() > 0)
    }

    /// A tool call needing `axgate:act` was admitted for `owner` in `session` (`None`:
    /// sessionless): if it is the holder's, the hold is renewed for `fleet.max_hold_secs`.
    pub fn acted(&self, session: Option<&str>, owner: &Option<Owner>) {
        let mut holder = self.holder();
        if let Some(h) = holder.as_mut()
            && h.owner == *owner
            && (session.is_none() || h.session.as_deref() == session)
        {
            h.renewed = Instant::now();
        }
    }

    pub fn exclusive(&self) -> bool {
        self.exclusive
    }

    pub fn retry_after(&self) -> Duration {
        self.retry_after
    }

    pub fn draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// Starts or ends draining; returns whether it was draining before.
    pub fn set_draining(&self, on: bool) -> bool {
        let was = self.draining.swap(on, Ordering::SeqCst);
        if was != on {
            if on {
                tracing::info!(
                    "draining: current sessions are served, new ones refused (503, \"draining\")"
                );
            } else {
                tracing::info!("draining ended: new sessions are taken again");
            }
        }
        self.record();
        was
    }

    /// The tag of the session holding the machine, if one does.
    pub fn holder_tag(&self) -> Option<String> {
        self.holder()
            .as_ref()
            .and_then(|h| h.session.as_deref().map(session_tag))
    }

    /// The state a balancer is told.
    pub fn capacity(&self) -> Capacity {
        if self.draining() {
            Capacity::Drain
        } else if (self.exclusive && self.holder().is_some()) || !self.registry.has_room() {
            Capacity::Busy
        } else {
            Capacity::Ready
        }
    }

    /// May a new session start? In exclusive mode the admission of a principal that may act
    /// holds the machine; an admin's `initialize` while another holds it opens a session
    /// that does not (and may use the admin tools only: [`Fleet::admit_request`]).
    pub fn admit_session(
        self: &Arc<Self>,
        owner: &Option<Owner>,
        rights: Rights,
    ) -> Result<Admission, Refusal> {
        if self.draining() {
            return Err(self.refused(Refusal::Draining));
        }
        if !self.exclusive {
            return Ok(Admission { fleet: None });
        }
        let mut holder = self.holder();
        if let Some(h) = holder.as_ref() {
            if rights.admin {
                return Ok(Admission { fleet: None });
            }
            let refusal = self.held_by(h);
            drop(holder);
            return Err(self.refused(refusal));
        }
        if !rights.act {
            if rights.admin {
                return Ok(Admission { fleet: None });
            }
            drop(holder);
            return Err(self.refused(Refusal::NeedsAct));
        }
        *holder = Some(Holder {
            session: None,
            owner: owner.clone(),
            since: SystemTime::now(),
            renewed: Instant::now(),
        });
        drop(holder);
        self.record();
        Ok(Admission {
            fleet: Some(self.clone()),
        })
    }

    /// May this sessionless request of `owner` run? `admin_tool`: it is a `tools/call` of
    /// an admin tool by a principal allowed it. (See the module doc for why.)
    pub fn admit_sessionless(
        &self,
        owner: &Option<Owner>,
        method: &str,
        admin_tool: bool,
    ) -> Result<(), Refusal> {
        if matches!(method, "server/discover" | "ping") || admin_tool {
            return Ok(());
        }
        if self.draining() {
            return Err(self.refused(Refusal::Draining));
        }
        self.admit_request(owner, method, false)
    }

    /// May this request of `owner` in an existing session run? While a session of another
    /// principal holds the machine, only `ping`, notifications, `tools/list` and admin tool
    /// calls (`admin_tool`) pass.
    pub fn admit_request(
        &self,
        owner: &Option<Owner>,
        method: &str,
        admin_tool: bool,
    ) -> Result<(), Refusal> {
        if !self.exclusive
            || admin_tool
            || matches!(method, "ping" | "tools/list")
            || method.starts_with("notifications/")
        {
            return Ok(());
        }
        let holder = self.holder();
        match holder.as_ref() {
            Some(h) if h.owner != *owner => {
                let refusal = self.held_by(h);
                drop(holder);
                Err(self.refused(refusal))
            }
            _ => Ok(()),
        }
    }

    fn refused(&self, refusal: Refusal) -> Refusal {
        match refusal {
            Refusal::Draining => self.metrics.fleet.refused_draining.inc(),
            Refusal::Held(..) | Refusal::Initializing | Refusal::NeedsAct => {
                self.metrics.fleet.refused_exclusive.inc()
            }
        }
        refusal
    }

    /// Whether `session` holds the machine (it is then never evicted to make room).
    pub fn holds(&self, session: &str) -> bool {
        self.lock()
            .as_ref()
            .is_some_and(|h| h.session.as_deref() == Some(session))
    }

    /// `session` ended: if it held the machine, the machine is free.
    pub fn ended(&self, session: &str) {
        let mut holder = self.lock();
        if holder
            .as_ref()
            .is_some_and(|h| h.session.as_deref() == Some(session))
        {
            *holder = None;
            drop(holder);
            tracing::info!(session = %session_tag(session), "exclusive: the holding session ended; this machine is free");
            self.record();
        }
    }

    /// Sets the capacity gauges (at each change and before each scrape).
    pub fn record(&self) {
        let now = self.capacity();
        for state in Capacity::ALL {
            self.metrics
                .fleet
                .capacity_state
                .with_label_values(&[state.label()])
                .set(i64::from(state == now));
        }
        self.metrics.fleet.draining.set(i64::from(self.draining()));
        let holder = self.holder();
        let held = holder.as_ref().filter(|h| h.session.is_some());
        let since = held
            .and_then(|h| h.since.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs() as i64);
        let left = held.map_or(0, |h| self.left(h) as i64);
        let tag = held.and_then(|h| h.session.as_deref().map(session_tag));
        drop(holder);
        self.metrics.fleet.exclusive_held_since.set(since);
        self.metrics.fleet.exclusive_hold_left.set(left);
        self.metrics.fleet.exclusive_holder.reset();
        if let Some(tag) = tag {
            self.metrics
                .fleet
                .exclusive_holder
                .with_label_values(&[tag.as_str()])
                .set(1);
        }
    }

    /// The address the agent-check listener bound, once it has.
    pub fn agent_addr(&self) -> Option<std::net::SocketAddr> {
        self.agent.get().copied()
    }
}

#[cfg(test)]
mod tests;
