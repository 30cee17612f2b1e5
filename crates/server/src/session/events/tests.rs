//! Unit tests of the event log: byte budgets per stream, per session and in total, the order
//! of eviction, events too large to keep, and the answers a resume gets afterwards.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use rmcp::model::{
    CustomNotification, CustomResult, JsonRpcMessage, JsonRpcNotification, JsonRpcResponse,
    RequestId, ServerJsonRpcMessage, ServerNotification, ServerResult,
};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use serde_json::json;

use super::queue::SLACK;
use super::{EVENT_OVERHEAD, EventLimits, EventLog, From, Resume, STREAM_OVERHEAD};

const KIB: usize = 1024;

fn limits(stream: usize, session: usize, total: usize) -> EventLimits {
    EventLimits {
        per_stream: 10_000,
        per_session: 100_000,
        stream_bytes: stream,
        session_bytes: session,
        total_bytes: total,
        finished_ttl: Duration::from_secs(300),
    }
}

/// A response whose JSON is about `size` bytes.
fn response(id: i64, size: usize) -> ServerSseMessage {
    let message: ServerJsonRpcMessage = JsonRpcMessage::Response(JsonRpcResponse {
        jsonrpc: Default::default(),
        id: RequestId::Number(id),
        result: ServerResult::CustomResult(CustomResult(json!({ "text": "r".repeat(size) }))),
    });
    let mut event = ServerSseMessage::default();
    event.message = Some(Arc::new(message));
    event
}

fn notification(size: usize) -> ServerSseMessage {
    let message: ServerJsonRpcMessage = JsonRpcMessage::Notification(JsonRpcNotification {
        jsonrpc: Default::default(),
        notification: ServerNotification::CustomNotification(CustomNotification::new(
            "notifications/test",
            Some(json!({ "text": "n".repeat(size) })),
        )),
    });
    let mut event = ServerSseMessage::default();
    event.message = Some(Arc::new(message));
    event
}

fn priming() -> ServerSseMessage {
    ServerSseMessage::priming("x", Duration::from_millis(100))
}

/// A session with a request stream bound to it; returns the stream number and its priming id.
fn request_stream(log: &EventLog, session: &str, rmcp_id: &str) -> (u64, String) {
    let id = log.append(rmcp_id, &priming());
    let n = log.bind(&id, session).expect("binds");
    (n, id)
}

#[test]
fn a_session_keeps_within_its_bytes_and_evicts_finished_streams_oldest_first() {
    let log = EventLog::new(limits(64 * KIB, 64 * KIB, 1024 * KIB), None);
    log.open_session("s");
    let mut streams = Vec::new();
    for i in 0..6 {
        let (n, priming) = request_stream(&log, "s", &format!("r{i}"));
        log.append(&format!("r{i}"), &response(i, 20 * KIB));
        streams.push((n, priming));
    }
    let stats = log.stats();
    assert!(stats.bytes <= 64 * KIB, "{stats:?}");
    assert!(stats.evicted > 0, "{stats:?}");
    // The newest streams are whole; the oldest are gone, and a resume there is told so.
    let (_, newest) = &streams[5];
    assert_eq!(log.resume_in_session(newest, "s"), Resume::Replayable);
    let (_, oldest) = &streams[0];
    assert_eq!(log.resume_in_session(oldest, "s"), Resume::Evicted);
    // Never to another session.
    assert_eq!(log.resume_in_session(oldest, "t"), Resume::Unknown);
    assert_eq!(log.resume_in_session(newest, "t"), Resume::Unknown);
    // Oldest first: every evicted stream is older than every kept one.
    let kept: Vec<bool> = streams
        .iter()
        .map(|(_, p)| log.resume_in_session(p, "s") == Resume::Replayable)
        .collect();
    let first_kept = kept.iter().position(|k| *k).unwrap();
    assert!(kept[first_kept..].iter().all(|k| *k), "{kept:?}");
}

#[test]
fn finished_streams_go_before_the_open_ones() {
    let log = EventLog::new(limits(64 * KIB, 64 * KIB, 1024 * KIB), None);
    log.open_session("s");
    let common = log.common_stream("s").unwrap();
    log.append("s:common", &notification(10 * KIB));
    let (_, done) = request_stream(&log, "s", "done");
    log.append("done", &response(1, 20 * KIB));
    let (_, open) = request_stream(&log, "s", "open");
    log.append("open", &notification(20 * KIB));
    // Over the budget: the finished stream goes, the open ones stay whole.
    log.append("open", &notification(20 * KIB));
    assert_eq!(log.resume_in_session(&done, "s"), Resume::Evicted);
    assert_eq!(log.resume_in_session(&open, "s"), Resume::Replayable);
    assert_eq!(
        log.resume_in_session(&format!("{common}-0"), "s"),
        Resume::Replayable
    );
    assert_eq!(log.count_after(common, 0), 0);
}

#[test]
fn a_stream_keeps_within_its_bytes_and_a_resume_before_the_gap_is_refused() {
    let log = EventLog::new(limits(34 * KIB, 64 * KIB, 1024 * KIB), None);
    log.open_session("s");
    let (n, priming) = request_stream(&log, "s", "r");
    let ids: Vec<String> = (0..4)
        .map(|_| log.append("r", &notification(10 * KIB)))
        .collect();
    let stats = log.stats();
    assert!(stats.bytes <= 34 * KIB, "{stats:?}");
    assert_eq!(log.resume_in_session(&priming, "s"), Resume::Evicted);
    assert_eq!(log.resume_in_session(&ids[3], "s"), Resume::Replayable);
    assert_eq!(log.resume_in_session(&ids[1], "s"), Resume::Replayable);
    assert_eq!(log.count_after(n, 1), 3);
}

#[test]
fn the_total_budget_takes_the_oldest_finished_stream_of_any_session() {
    let log = EventLog::new(limits(64 * KIB, 64 * KIB, 100 * KIB), None);
    let mut first = Vec::new();
    for s in ["a", "b", "c", "d"] {
        log.open_session(s);
        let (_, p) = request_stream(&log, s, &format!("{s}1"));
        log.append(&format!("{s}1"), &response(1, 30 * KIB));
        first.push((s, p));
    }
    let stats = log.stats();
    assert!(stats.bytes <= 100 * KIB, "{stats:?}");
    assert_eq!(log.resume_in_session(&first[0].1, "a"), Resume::Evicted);
    assert_eq!(log.resume_in_session(&first[3].1, "d"), Resume::Replayable);
}

#[tokio::test]
async fn an_event_too_large_to_keep_reaches_the_live_reader_once() {
    let log = EventLog::new(limits(16 * KIB, 16 * KIB, 1024 * KIB), None);
    log.open_session("s");
    let (n, priming) = request_stream(&log, "s", "r");
    let tail = log.tail(n, From::Start);
    log.append("r", &response(9, 40 * KIB));
    let events: Vec<ServerSseMessage> =
        tokio::time::timeout(Duration::from_secs(5), tail.collect())
            .await
            .expect("the stream ends after its response");
    assert_eq!(events.len(), 2, "priming and the response");
    let sent = serde_json::to_value(events[1].message.as_deref().unwrap()).unwrap();
    assert_eq!(sent["id"], 9);
    assert_eq!(sent["result"]["text"].as_str().unwrap().len(), 40 * KIB);
    let stats = log.stats();
    assert_eq!(stats.too_large, 1);
    assert!(stats.bytes < 16 * KIB, "not kept: {stats:?}");
    // Not kept: a resume from before it is told so.
    assert_eq!(log.resume_in_session(&priming, "s"), Resume::Evicted);
}

#[test]
fn an_event_too_large_with_nobody_reading_is_not_kept() {
    let log = EventLog::new(limits(16 * KIB, 16 * KIB, 1024 * KIB), None);
    log.open_session("s");
    let common = log.common_stream("s").unwrap();
    let big = log.append("s:common", &notification(40 * KIB));
    // Only the stream's own structures are held.
    assert_eq!(log.stats().bytes, STREAM_OVERHEAD);
    assert_eq!(
        log.resume_in_session(&format!("{common}-0"), "s"),
        Resume::Replayable
    );
    assert_eq!(log.resume_in_session(&big, "s"), Resume::Replayable);
    let small = log.append("s:common", &notification(100));
    assert!(small.ends_with("-1"), "{small}");
    let bytes = log.stats().bytes;
    assert!(
        bytes > STREAM_OVERHEAD + 100 + EVENT_OVERHEAD && bytes < STREAM_OVERHEAD + KIB,
        "{bytes}"
    );
}

#[tokio::test]
async fn a_live_reader_that_would_skip_an_evicted_event_ends() {
    let log = EventLog::new(limits(24 * KIB, 64 * KIB, 1024 * KIB), None);
    log.open_session("s");
    let (n, _) = request_stream(&log, "s", "r");
    let mut tail = Box::pin(log.tail(n, From::Start));
    let first = tail.next().await.expect("priming");
    assert!(first.message.is_none());
    for _ in 0..4 {
        log.append("r", &notification(10 * KIB));
    }
    // Events 1 and 2 were evicted before this reader got them: it ends rather than skip.
    let rest: Vec<ServerSseMessage> = tokio::time::timeout(Duration::from_secs(5), tail.collect())
        .await
        .expect("ends");
    assert!(rest.is_empty(), "{} events after a gap", rest.len());
}

#[test]
fn dropping_a_session_frees_its_bytes_and_leaves_others() {
    let log = EventLog::new(limits(64 * KIB, 64 * KIB, 1024 * KIB), None);
    for s in ["a", "b"] {
        log.open_session(s);
        let _ = request_stream(&log, s, &format!("{s}1"));
        log.append(&format!("{s}1"), &response(1, 10 * KIB));
    }
    let before = log.stats().bytes;
    log.drop_session("a");
    let after = log.stats();
    assert!(after.bytes < before && after.bytes > 10 * KIB, "{after:?}");
    assert_eq!(after.streams, 1);
}

#[tokio::test]
async fn a_live_reader_gets_the_message_itself_and_a_replay_the_same_json() {
    let log = EventLog::new(limits(64 * KIB, 64 * KIB, 1024 * KIB), None);
    log.open_session("s");
    let (n, priming_id) = request_stream(&log, "s", "r");
    let mut live = Box::pin(log.tail(n, From::Start));
    let sent = response(1, 100);
    log.append("r", &sent);
    assert!(log.live.bytes() > 0, "kept for the attached reader");
    let first = live.next().await.expect("the priming event");
    assert!(first.message.is_none());
    let got = live.next().await.expect("the response");
    let (sent, got) = (
        sent.message.expect("a message"),
        got.message.expect("a message"),
    );
    assert!(
        Arc::ptr_eq(&sent, &got),
        "the message itself, not rebuilt from its JSON"
    );
    assert_eq!(log.live.bytes(), 0, "given back once delivered");

    let after = super::EventRef::parse(&priming_id)
        .expect("an event id")
        .seq;
    let mut replay = Box::pin(log.tail(n, From::After(after)));
    let again = replay
        .next()
        .await
        .expect("replayed")
        .message
        .expect("a message");
    assert!(
        !Arc::ptr_eq(&sent, &again),
        "a replay is rebuilt from the stored JSON"
    );
    assert_eq!(
        serde_json::to_value(&*sent).unwrap(),
        serde_json::to_value(&*again).unwrap()
    );
}

#[tokio::test]
async fn nothing_is_kept_live_without_a_reader_and_a_leaving_reader_gives_it_back() {
    let log = EventLog::new(limits(64 * KIB, 64 * KIB, 1024 * KIB), None);
    log.open_session("s");
    let common = log.common_stream("s").expect("the session's GET stream");
    let id = super::common_id("s");
    log.append(&id, &notification(100));
    assert_eq!(log.live.bytes(), 0, "no reader: only the JSON is kept");
    let mut reader = Box::pin(log.tail(common, From::Undelivered));
    reader.next().await.expect("the stored notification");
    log.append(&id, &notification(100));
    assert!(log.live.bytes() > 0, "kept for the reader");
    drop(reader);
    assert_eq!(log.live.bytes(), 0, "the reader left: given back");
}

#[test]
fn a_direct_request_stream_opens_in_its_session_and_is_never_queued_as_unbound() {
    let log = EventLog::new(limits(64 * KIB, 64 * KIB, 1024 * KIB), None);
    log.open_session("s");
    let (name, n) = log
        .open_request("s", "7", Duration::from_millis(100))
        .expect("the session exists");
    assert_eq!(log.session_of(n).as_deref(), Some("s"));
    assert_eq!(log.unbound.len(), 0, "nothing for the sweep to find");
    assert_eq!(log.stats().events, 1, "the priming event");
    // Registered for its request: a cancellation ends it.
    assert!(!log.is_finished(n));
    log.finish_request("s", "7");
    assert!(log.is_finished(n));
    // The response is stored on the same stream, after the priming event.
    assert_eq!(log.append(&name, &response(7, 10)), format!("{n}-1"));
    // A session that is gone opens nothing.
    log.drop_session("s");
    assert!(
        log.open_request("s", "8", Duration::from_millis(100))
            .is_none()
    );
}

#[test]
fn the_queues_of_finished_and_unbound_streams_stay_bounded_under_many_calls() {
    // A session budget of a few calls: each finished stream is soon evicted by the session,
    // long before the 300 s TTL would pop its queue entry.
    let log = EventLog::new(limits(64 * KIB, 4 * KIB, 1024 * KIB), None);
    log.open_session("s");
    let calls = 20 * SLACK;
    for i in 0..calls {
        if i % 2 == 0 {
            // The direct path.
            let (name, _) = log
                .open_request("s", &i.to_string(), Duration::from_millis(100))
                .expect("opens");
            log.append(&name, &response(i as i64, 10));
        } else {
            // rmcp's path: a stream created outside the session, then bound to it.
            let rmcp_id = format!("r{i}");
            request_stream(&log, "s", &rmcp_id);
            log.append(&rmcp_id, &response(i as i64, 10));
        }
    }
    let live = log.stats().streams;
    assert!(live < 64, "the session budget holds few streams: {live}");
    for (queue, which) in [(&log.finished, "finished"), (&log.unbound, "unbound")] {
        assert!(
            queue.len() <= 2 * SLACK,
            "{which}: {} entries after {calls} calls, {live} live streams",
            queue.len()
        );
        assert!(
            queue.bytes() <= 4 * SLACK * 24,
            "{which}: {} bytes",
            queue.bytes()
        );
    }
}

/// Issue 33: the budgets weighed a stream's events only, while each stream's own structures
/// held about 1.4 KiB more, so 64 MiB counted was 2.5 times as much resident memory after a
/// load of `list_apps` calls. A stream now weighs its structures too: many small streams are
/// few enough that what they hold fits the budget.
#[test]
fn many_small_streams_are_weighed_with_their_own_structures() {
    let log = EventLog::new(limits(64 * KIB, 1024 * KIB, 256 * KIB), None);
    log.open_session("s");
    for i in 0..2_000 {
        let rmcp_id = format!("r{i}");
        request_stream(&log, "s", &rmcp_id);
        log.append(&rmcp_id, &response(i, 100));
    }
    let stats = log.stats();
    assert!(stats.bytes <= 256 * KIB, "{stats:?}");
    assert!(stats.streams > 16, "the newest streams are kept: {stats:?}");
    // At 2.5 KiB of structures each, 256 KiB holds at most 102 of them (at 1.5 KiB, 170);
    // weighing the events alone (about 280 bytes a stream) kept 949.
    assert!(
        stats.streams <= 102,
        "each stream weighs its structures: {stats:?}"
    );
}

/// Issue 33: a hash map keeps the table of its fullest moment. After a burst of calls, a
/// session's maps of streams and of requests, and the index's maps, held the burst's tables
/// once the streams were gone (a quarter of the log's heap in the profile). They now give
/// their room back as the streams go.
#[test]
fn maps_give_back_their_room_when_their_streams_go() {
    let mut limits = limits(64 * KIB, 4096 * KIB, 4096 * KIB);
    limits.finished_ttl = Duration::ZERO;
    let log = EventLog::new(limits, None);
    log.open_session("s");
    for i in 0..1_000 {
        let rmcp_id = format!("r{i}");
        request_stream(&log, "s", &rmcp_id);
        log.append(&rmcp_id, &response(i, 100));
    }
    assert_eq!(log.stats().streams, 1_000, "the burst is held");
    log.sweep();
    assert_eq!(log.stats().streams, 0, "the finished streams are swept");
    let index = log.index.read().unwrap();
    let state = index.sessions["s"].lock();
    let rooms = [
        ("the session's streams", state.streams.capacity()),
        ("the session's requests", state.requests.capacity()),
        ("the index's groups", index.groups.capacity()),
        ("the index's stream ids", index.by_rmcp_id.capacity()),
    ];
    for (map, room) in rooms {
        assert!(room <= 64, "{map} keep room for {room} entries");
    }
}
