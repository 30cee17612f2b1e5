//! The table of configuration keys: name, meaning and default of each.

use super::Key;

/// The table of keys; `config/axgate.example.toml` documents the same list (a test checks).
pub const KEYS: &[Key] = &[
    Key {
        name: "server.bind",
        doc: "Address and port of the MCP listener.",
        default: "\"127.0.0.1:8741\"",
    },
    Key {
        name: "server.allowed_hosts",
        doc: "Host header values accepted (DNS-rebinding guard); host or host:port.",
        default: "[\"localhost\", \"127.0.0.1\", \"[::1]\"]",
    },
    Key {
        name: "server.allowed_origins",
        doc: "Origin header values accepted; scheme://host[:port|:*]. Requests without Origin are allowed.",
        default: "[\"http://localhost:*\", \"http://127.0.0.1:*\", \"http://[::1]:*\"]",
    },
    Key {
        name: "server.metrics_bind",
        doc: "Serve /metrics on this separate address instead of the main listener (empty: main listener).",
        default: "\"\"",
    },
    Key {
        name: "server.tls_cert",
        doc: "PEM certificate chain of the MCP listener; with server.tls_key, serves HTTPS (rustls). Reloaded on SIGHUP.",
        default: "\"\"",
    },
    Key {
        name: "server.tls_key",
        doc: "PEM private key (PKCS#8, PKCS#1 or SEC1) of server.tls_cert.",
        default: "\"\"",
    },
    Key {
        name: "server.max_body_bytes",
        doc: "Largest accepted request body; larger gets 413.",
        default: "1048576",
    },
    Key {
        name: "server.shutdown_grace_secs",
        doc: "How long shutdown waits for requests to finish.",
        default: "10",
    },
    Key {
        name: "server.sse_keep_alive_secs",
        doc: "Interval of SSE keep-alive comments.",
        default: "15",
    },
    Key {
        name: "server.header_timeout_ms",
        doc: "A request head (and a TLS handshake) must arrive whole within this once the server waits for it, also between requests on a kept-alive connection; else the connection is closed.",
        default: "10000",
    },
    Key {
        name: "server.idle_timeout_secs",
        doc: "A connection on which no byte moves either way for this long, while the server waits on it, is closed; longer than server.sse_keep_alive_secs.",
        default: "120",
    },
    Key {
        name: "server.body_timeout_ms",
        doc: "A request body must arrive whole within this; else 408 (short: a trickled body holds a place among server.max_in_flight_per_caller meanwhile).",
        default: "5000",
    },
    Key {
        name: "server.max_connections",
        doc: "Most open connections per listener (lowered to fit the open-file limit); past it a connection gets 503 with Retry-After and is closed.",
        default: "1024",
    },
    Key {
        name: "server.max_unauthenticated_per_address",
        doc: "Most connections one source address (an IPv6 /64) holds before a request on them is authenticated; at it a newcomer takes the place of the address's own oldest silent or idle one, never another address's, else gets 503 with Retry-After (TLS: closed). A connection that carried an authenticated request no longer counts. Without auth every connection counts.",
        default: "64",
    },
    Key {
        name: "server.trusted_proxies",
        doc: "Addresses or CIDR prefixes (a load balancer's) whose connections are exempt from server.max_unauthenticated_per_address; still under server.max_connections.",
        default: "[]",
    },
    Key {
        name: "server.max_in_flight",
        doc: "Most MCP POST requests served at once (each until its response ends); past it a POST gets 503 with Retry-After.",
        default: "256",
    },
    Key {
        name: "server.max_in_flight_per_caller",
        doc: "Most of those one caller holds at once (a principal; without auth, a source address), so one caller's slow bodies or long waits leave the rest to others; past it its POST gets 503 with Retry-After. At most server.max_in_flight.",
        default: "64",
    },
    Key {
        name: "server.max_streams",
        doc: "Most GET streams open at once on /mcp (a session's stream, a resume with Last-Event-ID), each until it ends; past it a GET gets 503 with Retry-After. Keep max_in_flight + max_streams well below max_connections: the rest is left for /healthz, /readyz, /metrics and callers' short requests.",
        default: "256",
    },
    Key {
        name: "server.max_streams_per_caller",
        doc: "Most of those one caller holds at once (a principal; without auth, a source address); past it its GET gets 503 with Retry-After. At most server.max_streams.",
        default: "16",
    },
    Key {
        name: "server.max_header_bytes",
        doc: "Largest request head in bytes (at least 8192); a larger one gets 431.",
        default: "32768",
    },
    Key {
        name: "server.sse_retry_ms",
        doc: "Reconnect hint sent in every stream's priming event.",
        default: "1000",
    },
    Key {
        name: "sessions.max",
        doc: "Most live sessions; at it a new session evicts an idle one (see sessions.evict_others_after_secs), else initialize gets 503 with Retry-After.",
        default: "64",
    },
    Key {
        name: "sessions.max_per_principal",
        doc: "Most live sessions of one authenticated principal; past it initialize gets 503 with Retry-After (its own idle sessions may give way, never another's). 0: half of sessions.max, at least 1.",
        default: "0",
    },
    Key {
        name: "sessions.idle_timeout_secs",
        doc: "A session with no request for this long is ended.",
        default: "1800",
    },
    Key {
        name: "sessions.idle_without_stream_secs",
        doc: "A session that never opened its GET stream (a CLI that never says goodbye) is ended after this long without a request, unless it is still working.",
        default: "300",
    },
    Key {
        name: "sessions.evict_others_after_secs",
        doc: "At sessions.max, a new session evicts the longest-idle one with no open stream, running request or lease: the same principal's at once, another principal's only once idle this long.",
        default: "600",
    },
    Key {
        name: "sessions.max_events_per_stream",
        doc: "Events kept for replay per SSE stream.",
        default: "512",
    },
    Key {
        name: "sessions.max_events_per_session",
        doc: "Events kept for replay per session, all streams.",
        default: "4096",
    },
    Key {
        name: "sessions.max_stream_bytes",
        doc: "Bytes of events kept for replay per SSE stream (event JSON plus 64 per event, plus 1,536 per stream for what the stream itself holds); the oldest go first.",
        default: "8388608",
    },
    Key {
        name: "sessions.max_session_bytes",
        doc: "Bytes of events kept for replay per session, all streams; finished streams go first, oldest first. A larger event is delivered live but never kept.",
        default: "8388608",
    },
    Key {
        name: "sessions.max_total_event_bytes",
        doc: "Bytes of events kept for replay over all sessions; the oldest finished streams anywhere go first.",
        default: "67108864",
    },
    Key {
        name: "sessions.finished_stream_ttl_secs",
        doc: "How long a finished response stream stays resumable.",
        default: "300",
    },
    Key {
        name: "backend.kind",
        doc: "auto, demo, atspi, macos or replay. auto: macos on macOS; atspi when an AT-SPI bus is reachable; else demo.",
        default: "\"auto\"",
    },
    Key {
        name: "backend.call_timeout_ms",
        doc: "Deadline of one backend call.",
        default: "5000",
    },
    Key {
        name: "backend.unresponsive_after",
        doc: "Consecutive timeouts that mark an app unresponsive.",
        default: "2",
    },
    Key {
        name: "backend.probe_interval_ms",
        doc: "How often an unresponsive app is probed.",
        default: "2000",
    },
    Key {
        name: "backend.max_queued_calls",
        doc: "Calls one app's AX worker holds, running and waiting; past it a call is refused at once as busy, with a retry delay.",
        default: "64",
    },
    Key {
        name: "backend.handle_cap",
        doc: "Element handles kept per app connection (least recently used evicted).",
        default: "5000",
    },
    Key {
        name: "backend.min_call_slice_ms",
        doc: "macOS: the least time one accessibility call may take before it counts as a timeout (unless the deadline is closer); calls may take up to a quarter of what is left of their deadline (at most 6 s).",
        default: "250",
    },
    Key {
        name: "backend.enhanced_ui_apps",
        doc: "macOS: bundle ids that also get AXEnhancedUserInterface (Chrome fills its tree only with it; it changes window animations, so it is opt-in).",
        default: "[]",
    },
    Key {
        name: "backend.recording",
        doc: "replay: the axgate-recording/1 file (docs/RECORDINGS.md) that backend.kind = replay serves, read-only, through the macOS backend's decoding and walk; empty: none.",
        default: "\"\"",
    },
    Key {
        name: "log.format",
        doc: "human or json.",
        default: "\"human\"",
    },
    Key {
        name: "log.level",
        doc: "A tracing filter such as info or axgate=debug.",
        default: "\"info\"",
    },
    Key {
        name: "audit.path",
        doc: "File of the audit trail (one hash-chained JSON line per mutating or denied tool call); empty: no audit.",
        default: "\"\"",
    },
    Key {
        name: "audit.max_file_bytes",
        doc: "Size past which the audit file is renamed to <path>.<N> and a new one started.",
        default: "67108864",
    },
    Key {
        name: "audit.max_files",
        doc: "Files of the trail kept in all, the current one included; after a rotation the oldest rotated files are removed, after a marker line that keeps the chain verifiable.",
        default: "16",
    },
    Key {
        name: "audit.max_total_bytes",
        doc: "Bytes kept in all files of the trail together; older rotated files are removed as for audit.max_files.",
        default: "1073741824",
    },
    Key {
        name: "audit.deny_window_secs",
        doc: "Denied calls of one principal within this many seconds after the first share one summary line with a count; 0: a line for every denied call.",
        default: "10",
    },
    Key {
        name: "auth.tokens",
        doc: "Static bearer tokens: a list of { name, sha256, scopes } tables (`axgate token new` prints one); in the environment an inline TOML or JSON array. A table may also set the token's own unconfirmed (refuse, allow or ask), calls_per_second and writes_per_second, overriding policy.unconfirmed and the [limits] rates for that token only.",
        default: "[]",
    },
    Key {
        name: "auth.issuer",
        doc: "OAuth issuer whose JWT access tokens are accepted (exact `iss`); empty: no JWTs.",
        default: "\"\"",
    },
    Key {
        name: "auth.jwks_uri",
        doc: "The issuer's JWK set; https (http only on loopback). Required with auth.issuer.",
        default: "\"\"",
    },
    Key {
        name: "auth.audience",
        doc: "This server's resource URI (RFC 8707), which a JWT's aud must include. Required with auth.issuer.",
        default: "\"\"",
    },
    Key {
        name: "auth.leeway_secs",
        doc: "Clock skew allowed on a JWT's exp and nbf.",
        default: "30",
    },
    Key {
        name: "auth.accepted_typ",
        doc: "The JWT header typ values the issuer's access tokens may carry (at+jwt of RFC 9068 by default; application/ prefix and case ignored); others, and a missing typ, are refused. An issuer that sends typ JWT (GitHub Actions) needs [\"at+jwt\", \"JWT\"].",
        default: "[\"at+jwt\"]",
    },
    Key {
        name: "auth.jwt_unconfirmed",
        doc: "The issuer's own policy.unconfirmed (refuse, allow or ask) for every JWT it signs; empty: policy.unconfirmed.",
        default: "\"\"",
    },
    Key {
        name: "auth.jwt_calls_per_second",
        doc: "The issuer's own limits.calls_per_second, per JWT subject; 0: limits.calls_per_second.",
        default: "0",
    },
    Key {
        name: "auth.jwt_writes_per_second",
        doc: "The issuer's own limits.writes_per_second, per JWT subject; 0: limits.writes_per_second.",
        default: "0",
    },
    Key {
        name: "auth.issuers",
        doc: "More trusted JWT issuers ([[auth.issuers]] tables): issuer (exact iss), jwks_uri, audience (default auth.audience), accepted_typ (default [\"at+jwt\"]; GitHub Actions sends JWT), their own unconfirmed, calls_per_second and writes_per_second, and [[auth.issuers.rules]]: { claims = { claim = \"value or glob\" }, scopes = [...] } plus a rule's own policy; the first rule whose claims all match admits a token, none matching is 403. In the environment an inline TOML or JSON array.",
        default: "[]",
    },
    Key {
        name: "auth.jwks_refresh_min_secs",
        doc: "Least time between two JWKS fetches; a token with an unknown kid asks for one.",
        default: "30",
    },
    Key {
        name: "policy.read_only",
        doc: "Read-only mode: tools that change UI or app state are hidden from tools/list and refused.",
        default: "false",
    },
    Key {
        name: "policy.allow_apps",
        doc: "Apps that may be named (name or bundle id, case-insensitive, trailing * for a prefix); empty: every app not denied.",
        default: "[]",
    },
    Key {
        name: "policy.deny_apps",
        doc: "Apps that may never be named (wins over allow_apps); setting it replaces the default list.",
        default: "[\"Keychain Access\", \"com.apple.keychainaccess\", \"Terminal\", \"com.apple.Terminal\", \"iTerm2\", \"iTerm\", \"com.googlecode.iterm2\", \"System Settings\", \"System Preferences\", \"com.apple.systempreferences\", \"com.apple.Settings\", \"1Password*\", \"com.1password.*\", \"com.agilebits.onepassword*\"]",
    },
    Key {
        name: "policy.confirm_words",
        doc: "Whole words (or phrases) that make a press destructive, so it needs the user's confirmation.",
        default: "[\"delete\", \"erase\", \"remove\", \"quit\", \"reset\", \"format\", \"destroy\", \"discard\", \"wipe\", \"uninstall\", \"overwrite\", \"revoke\", \"empty trash\", \"shut down\", \"restart\", \"log out\"]",
    },
    Key {
        name: "policy.unconfirmed",
        doc: "A destructive press when no person can be asked (a session without form elicitation; any sessionless request): refuse or allow; ask: on the sessionless path ask through an input-required result and take the caller's own answer as a person's (refuse when it cannot be asked).",
        default: "\"refuse\"",
    },
    Key {
        name: "policy.secrets",
        doc: "Secret names (or PREFIX* patterns) every principal may type with secret: NAME, unless its token, issuer or claim rule sets its own secrets list; empty: none.",
        default: "[]",
    },
    Key {
        name: "policy.secrets_into_plain_fields",
        doc: "A secret may be typed into a field that is not a secure text field (then masked in results); a token, issuer or rule may set its own.",
        default: "false",
    },
    Key {
        name: "secrets.source",
        doc: "Where secret: NAME values come from: env (secrets.env_prefix + NAME), file (secrets.dir/NAME, mode 600) or keychain (macOS, secrets.keychain_service); empty: no store. Reloaded on SIGHUP.",
        default: "\"\"",
    },
    Key {
        name: "secrets.env_prefix",
        doc: "The environment variable prefix of secrets.source = \"env\".",
        default: "\"AXGATE_SECRET_\"",
    },
    Key {
        name: "secrets.dir",
        doc: "The directory of secrets.source = \"file\": one file per secret, named by it, readable by the server's user only.",
        default: "\"\"",
    },
    Key {
        name: "secrets.keychain_service",
        doc: "The Keychain service of secrets.source = \"keychain\" (generic passwords; the account is the secret's name).",
        default: "\"axgate\"",
    },
    Key {
        name: "limits.calls_per_second",
        doc: "Tool calls per second per principal, counting resources/read, prompts/get, completion/complete and subscriptions/listen too; beyond it a request is refused with a retry hint.",
        default: "50",
    },
    Key {
        name: "limits.writes_per_second",
        doc: "Calls of tools that change UI or app state, per second per principal.",
        default: "10",
    },
    Key {
        name: "limits.max_listens_per_principal",
        doc: "Most subscriptions/listen requests one principal runs at once; past it a listen is refused naming this key.",
        default: "16",
    },
    Key {
        name: "limits.max_tasks_per_principal",
        doc: "Most tasks (the tasks extension) one principal holds at once, running or finished and kept for tasks/get; past it a call asking for a task is refused naming this key.",
        default: "16",
    },
    Key {
        name: "limits.max_task_bytes",
        doc: "Bytes of finished task results kept for tasks/get, over all principals; a result that does not fit is replaced by an error naming this key.",
        default: "67108864",
    },
    Key {
        name: "limits.task_ttl_secs",
        doc: "How long a task and its result are kept after the task was created (its ttlMs); then tasks/get answers unknown task.",
        default: "300",
    },
    Key {
        name: "fleet.exclusive",
        doc: "Exclusive mode: one client session holds this machine; other initialize requests get 503 with Retry-After naming the holder's session tag (docs/FLEET.md).",
        default: "false",
    },
    Key {
        name: "fleet.drain",
        doc: "Start draining: current sessions are served, new ones get 503 (SIGUSR1 drains, SIGUSR2 ends draining, the set_draining tool does either).",
        default: "false",
    },
    Key {
        name: "fleet.agent_listen",
        doc: "Address of the HAProxy agent-check port, which answers ready or drain (busy or draining) and closes (empty: off).",
        default: "\"\"",
    },
    Key {
        name: "fleet.retry_after_secs",
        doc: "The Retry-After of a 503 refused for exclusivity or draining.",
        default: "5",
    },
    Key {
        name: "fleet.max_hold_secs",
        doc: "Exclusive mode: the hold ends when its holder has not acted (a tool call needing axgate:act) for this long; pings and reads do not keep it.",
        default: "900",
    },
    Key {
        name: "webdriver.idle_timeout_secs",
        doc: "A WebDriver session (docs/WEBDRIVER.md) that no command reached for this long is ended, as Appium's newCommandTimeout; a session's own appium:newCommandTimeout replaces it.",
        default: "60",
    },
    Key {
        name: "webdriver.max_sessions",
        doc: "Most WebDriver sessions at once; past it POST /session is refused with session not created naming this key.",
        default: "16",
    },
    Key {
        name: "webdriver.allow_scripts",
        doc: "Whether WebDriver sessions may run AppleScript (appium:prerun, appium:postrun, macos: appleScript) through /usr/bin/osascript on macOS: a script can do anything the logged-in user can. Never in read-only mode; the act scope is needed; each run is audited with its size, never its text.",
        default: "false",
    },
];
