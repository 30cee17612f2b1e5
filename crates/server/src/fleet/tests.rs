//! The capacity rules without a server: who may start a session, what the agent says, and
//! that a hold given back or ended frees the machine.

use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::session::SessionLimits;

const ACT: Rights = Rights {
    act: true,
    admin: false,
};

fn owner(name: &str) -> Option<Owner> {
    Some(Owner {
        key: format!("token:{name}"),
    })
}

fn fleet(exclusive: bool, max_sessions: usize) -> (Arc<Fleet>, Arc<SessionRegistry>, Metrics) {
    let registry = Arc::new(SessionRegistry::new(SessionLimits {
        max_sessions,
        idle_timeout: Duration::from_secs(3600),
        idle_without_stream: Duration::from_secs(3600),
        evict_others_after: Duration::from_secs(3600),
        max_per_principal: max_sessions,
    }));
    let metrics = Metrics::new(prometheus::Registry::new()).expect("metrics");
    let config = FleetConfig {
        exclusive,
        drain: false,
        agent_listen: None,
        retry_after: Duration::from_secs(5),
        max_hold: Duration::from_secs(900),
    };
    let fleet = Arc::new(Fleet::new(&config, registry.clone(), metrics.clone()));
    (fleet, registry, metrics)
}

#[test]
fn one_holder_at_a_time_and_a_pending_hold_blocks_a_second_initialize() {
    let (fleet, registry, metrics) = fleet(true, 8);
    assert_eq!(fleet.capacity(), Capacity::Ready);
    let first = fleet.admit_session(&owner("ci"), ACT).expect("free");
    // Its response is not out yet: a second initialize cannot slip in.
    assert_eq!(
        fleet.admit_session(&owner("ci"), ACT).err(),
        Some(Refusal::Initializing)
    );
    registry.insert("s-1");
    first.bind("s-1");
    assert!(fleet.holds("s-1"));
    assert_eq!(fleet.capacity(), Capacity::Busy);
    let tag = session_tag("s-1");
    let refused = fleet
        .admit_session(&owner("other"), ACT)
        .err()
        .expect("held");
    assert_eq!(refused, Refusal::Held(tag.clone(), 900));
    assert!(refused.message().contains(&tag) && !refused.message().contains("s-1 "));
    assert_eq!(metrics.fleet.refused_exclusive.get(), 2);
    assert!(metrics.fleet.exclusive_held_since.get() > 0);
    fleet.ended("s-1");
    assert_eq!(fleet.capacity(), Capacity::Ready);
    assert_eq!(metrics.fleet.exclusive_held_since.get(), 0);
}

#[test]
fn an_initialize_that_made_no_session_gives_the_machine_back() {
    let (fleet, _, _) = fleet(true, 8);
    drop(fleet.admit_session(&owner("ci"), ACT).expect("free"));
    assert_eq!(fleet.capacity(), Capacity::Ready);
    assert!(fleet.admit_session(&owner("ci"), ACT).is_ok());
}

#[test]
fn a_holder_whose_session_vanished_is_forgotten() {
    let (fleet, registry, _) = fleet(true, 8);
    registry.insert("s-1");
    fleet.admit_session(&None, ACT).expect("free").bind("s-1");
    registry.remove("s-1");
    assert_eq!(fleet.capacity(), Capacity::Ready);
    assert_eq!(fleet.holder_tag(), None);
}

#[test]
fn sessionless_requests_pass_for_the_holders_principal_only() {
    let (fleet, registry, _) = fleet(true, 8);
    assert!(
        fleet
            .admit_sessionless(&owner("other"), "tools/call", false)
            .is_ok()
    );
    registry.insert("s-1");
    fleet
        .admit_session(&owner("ci"), ACT)
        .expect("free")
        .bind("s-1");
    assert!(
        fleet
            .admit_sessionless(&owner("ci"), "tools/call", false)
            .is_ok()
    );
    assert_eq!(
        fleet.admit_sessionless(&owner("other"), "tools/call", false),
        Err(Refusal::Held(session_tag("s-1"), 900))
    );
    assert!(
        fleet
            .admit_sessionless(&owner("other"), "server/discover", false)
            .is_ok()
    );
}

#[test]
fn draining_refuses_new_work_and_wins_over_busy() {
    let (fleet, registry, metrics) = fleet(false, 1);
    registry.insert("s-1");
    assert_eq!(fleet.capacity(), Capacity::Busy, "at sessions.max");
    assert!(!fleet.set_draining(true));
    assert_eq!(fleet.capacity(), Capacity::Drain);
    assert_eq!(Capacity::Drain.agent_word(), "drain");
    assert_eq!(
        fleet.admit_session(&None, ACT).err(),
        Some(Refusal::Draining)
    );
    assert_eq!(
        fleet.admit_sessionless(&None, "tools/call", false),
        Err(Refusal::Draining)
    );
    assert!(fleet.admit_sessionless(&None, "ping", false).is_ok());
    assert_eq!(metrics.fleet.draining.get(), 1);
    assert_eq!(metrics.fleet.refused_draining.get(), 2);
    fleet.set_draining(false);
    registry.remove("s-1");
    assert_eq!(fleet.capacity(), Capacity::Ready);
    assert_eq!(fleet.capacity().agent_word(), "ready");
    let gauge = |s: &str| metrics.fleet.capacity_state.with_label_values(&[s]).get();
    fleet.record();
    assert_eq!((gauge("ready"), gauge("busy"), gauge("drain")), (1, 0, 0));
}
