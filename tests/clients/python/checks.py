"""The steps every Python SDK client check takes against axgate, shared by client_check.py
(mcp 2.x) and client_check_v1.py (mcp 1.x): each script only knows how its SDK connects.

Against a fresh server with the demo backend and a static bearer token (tests/it/clients.rs
starts one per run, behind a proxy that breaks one response stream), `scenario` initializes,
subscribes to axgate://app/Form/state, lists the tools, presses the Form app's "Subscribe"
check box and reads the effect back, waits for the resource update and the per-call log
records, runs a `wait_for` whose stream the proxy cuts after its first progress notification
(the SDK must reconnect with Last-Event-ID and still get the result), ends the session with
DELETE, checks the server answers 404 for it, and finally connects with a wrong and with no
token and records how the SDK fails.

Every step prints one JSON line `{"step": ..., ...}`; tests/it/clients.rs asserts on those
fields. A failure prints `{"step": "fail", "error": ...}` and exits 1; success ends with
`{"step": "pass"}`. A warning or error the SDK logs during the authorized session is a failure
too (the broken stream must not cause one); the refused connections may log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
import traceback
import warnings
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

APP = "Form"
CHECK_BOX = "window[0]/check_box[0]"
TITLE = "Subscribe"
STATE_URI = "axgate://app/Form/state"
PROTOCOL = "2025-11-25"
# The bearer token comes from the environment, never from the command line (ps shows that).
TOKEN_ENV = "CLIENT_CHECK_TOKEN"
WAIT_S = 15.0
OVERALL_S = 150.0
AUTH_ATTEMPT_S = 30.0


class CheckFailed(Exception):
    """One step's expectation did not hold."""


def report(step: str, **fields: Any) -> None:
    print(json.dumps({"step": step, **fields}), flush=True)


def check(cond: bool, message: str) -> None:
    if not cond:
        raise CheckFailed(message)


@dataclass
class Hello:
    """What the handshake told the client."""

    protocol: str
    server_name: str
    server_version: str
    sdk: str
    session_id: str | None


@dataclass
class Seen:
    """What the HTTP hooks and the SDK's notification callbacks saw."""

    session_id: str | None = None
    delete_status: int | None = None
    statuses: list[int] = field(default_factory=list)
    log_records: list[dict[str, Any]] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)

    async def on_response(self, response: Any) -> None:
        self.statuses.append(response.status_code)
        sid = response.headers.get("mcp-session-id")
        if sid and self.session_id is None:
            self.session_id = sid
        if response.request.method == "DELETE":
            self.delete_status = response.status_code

    async def on_log(self, params: Any) -> None:
        data = params.data if isinstance(params.data, dict) else {}
        self.log_records.append({"level": str(params.level), "logger": params.logger, **data})

    async def on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            return
        note = getattr(message, "root", message)
        if getattr(note, "method", None) == "notifications/resources/updated":
            self.updated.append(str(note.params.uri))


# connect(url, token, seen) -> async context manager yielding (client, hello). The client has
# the methods both SDK generations share: set_logging_level, list_tools, subscribe_resource,
# call_tool(name, arguments, progress_callback=...).
Connect = Callable[[str, "str | None", Seen], AbstractAsyncContextManager[tuple[Any, Hello]]]
# probe(url, headers, body) -> HTTP status, with the SDK's own HTTP library.
Probe = Callable[[str, dict[str, str], str], Awaitable[int]]


def prober(http_module: Any) -> Probe:
    """A Probe POSTing with `http_module` (httpx for SDK 1.x, httpx2 for 2.x)."""

    async def probe(url: str, headers: dict[str, str], body: str) -> int:
        async with http_module.AsyncClient() as http:
            response = await http.post(url, headers=headers, content=body)
            return response.status_code

    return probe


class SdkComplaints(logging.Handler):
    """Collects every WARNING-or-worse record that the SDK (or anything under it) logs."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
        self.records.append(text)
        print(f"     sdk logged: {text}", file=sys.stderr, flush=True)


# Installed by guarded(); the refused connections at the end of `scenario` may log (it checks
# the session's records itself before them), nothing else may.
COMPLAINTS = SdkComplaints()
REFUSALS_MAY_LOG = [False]


def text_of(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in (result.content or []))


def field_of(result: Any, snake: str, camel: str) -> Any:
    """A result field: SDK 2.x names them in snake_case, 1.x as on the wire."""
    return getattr(result, snake) if hasattr(result, snake) else getattr(result, camel, None)


def structured(result: Any, tool: str) -> dict[str, Any]:
    check(not field_of(result, "is_error", "isError"), f"{tool} returned isError: {text_of(result)}")
    sc = field_of(result, "structured_content", "structuredContent")
    check(isinstance(sc, dict), f"{tool} has no structuredContent")
    return sc


def check_box_value(result: Any) -> Any:
    sc = structured(result, "get_tree")
    nodes = sc.get("nodes") or []
    boxes = [n for n in nodes if n.get("role") == "check_box" and n.get("title") == TITLE]
    check(len(boxes) == 1, f"get_tree: expected one check_box titled {TITLE!r}, found {len(boxes)}")
    check(boxes[0].get("path") == CHECK_BOX, f"check box path is {boxes[0].get('path')!r}")
    return boxes[0].get("value")


async def wait_until(cond: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not cond():
        if time.monotonic() > deadline:
            raise CheckFailed(f"no {what} within {WAIT_S:.0f} s")
        await asyncio.sleep(0.02)


async def press(client: Any) -> dict[str, Any]:
    acted = await client.call_tool("perform_action", {"app": APP, "target": CHECK_BOX, "action": "press"})
    out = structured(acted, "perform_action")
    check(out.get("verified") is True, f"perform_action not verified: {out}")
    return out.get("element") or {}


async def session_steps(client: Any, hello: Hello, seen: Seen) -> None:
    """Everything done inside one authorized session."""
    report(
        "initialize",
        protocol=hello.protocol,
        server=hello.server_name,
        server_version=hello.server_version,
        sdk=hello.sdk,
        session=hello.session_id is not None,
    )
    with warnings.catch_warnings():
        # logging/setLevel and resources/subscribe are deprecated by 2026-07-28 (2.x warns),
        # but they are the 2025-11-25 way.
        warnings.simplefilter("ignore")
        await client.set_logging_level("info")
        await client.subscribe_resource(STATE_URI)
    report("subscribe", uri=STATE_URI)

    tools = await client.list_tools()
    report("tools/list", tools=sorted(t.name for t in tools.tools))

    before = check_box_value(await client.call_tool("get_tree", {"app": APP, "nodes": True}))
    element = await press(client)
    after = check_box_value(await client.call_tool("get_tree", {"app": APP, "nodes": True}))
    report("call", before=before, pressed=element.get("value"), after=after)

    await wait_until(lambda: STATE_URI in seen.updated, f"notifications/resources/updated for {STATE_URI}")
    report("updated", uris=sorted(set(seen.updated)))

    await resume_step(client)

    await wait_until(
        lambda: len([r for r in seen.log_records if r.get("event") == "tool_call"]) >= 5,
        "tool_call log record for each of the 5 calls",
    )
    tools_logged = [r.get("tool") for r in seen.log_records if r.get("event") == "tool_call"]
    # The press during the wait changed the state again: its update is the last message the
    # server sends. Leaving before it arrives races the SDK's shutdown.
    await wait_until(lambda: len(seen.updated) >= 2, "second resources/updated (after the resume step's press)")
    report("log", tools=tools_logged, updates=len(seen.updated))


async def resume_step(client: Any) -> None:
    """A wait_for that only ends when the check box is pressed back: the proxy cuts its stream
    after the first progress notification, which is also when the press is sent."""
    progress: list[float] = []
    pressing: list[asyncio.Task[dict[str, Any]]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)
        if not pressing:
            pressing.append(asyncio.create_task(press(client)))

    started = time.monotonic()
    waited = await client.call_tool(
        "wait_for",
        {"app": APP, "target": CHECK_BOX, "condition": "value_equals", "value": "false", "timeout_ms": 60000},
        progress_callback=on_progress,
    )
    out = structured(waited, "wait_for")
    check(bool(pressing), "wait_for returned without any progress notification")
    pressed = await pressing[0]
    report(
        "resume",
        satisfied=out.get("satisfied"),
        actual=out.get("actual"),
        progress=len(progress),
        pressed=pressed.get("value"),
        seconds=round(time.monotonic() - started, 2),
    )


def status_of(error: BaseException) -> int | None:
    """The HTTP status inside an SDK error (possibly wrapped in exception groups)."""
    response = getattr(error, "response", None)
    code = getattr(response, "status_code", None)
    if isinstance(code, int):
        return code
    for inner in getattr(error, "exceptions", ()) or ():
        found = status_of(inner)
        if found is not None:
            return found
    for linked in (error.__cause__, error.__context__):
        if linked is not None and linked is not error:
            found = status_of(linked)
            if found is not None:
                return found
    return None


async def refused(url: str, token: str | None, connect: Connect) -> dict[str, Any]:
    """Connects with `token` (None: no Authorization header) and records how the SDK fails:
    the status its error carries (if any), the error, and the statuses the HTTP layer saw."""
    seen = Seen()
    try:
        async with asyncio.timeout(AUTH_ATTEMPT_S):
            async with connect(url, token, seen):
                pass
    except TimeoutError:
        return {"status": None, "http": seen.statuses, "error": f"no failure within {AUTH_ATTEMPT_S:.0f} s"}
    except BaseException as e:  # noqa: BLE001 - the SDK's own failure is what we record
        inner = innermost(e)
        return {"status": status_of(e), "http": seen.statuses, "error": f"{type(inner).__name__}: {inner}"[:300]}
    return {"status": None, "http": seen.statuses, "error": "connected"}


def innermost(e: BaseException) -> BaseException:
    """The first leaf of anyio's exception groups."""
    while getattr(e, "exceptions", None):
        e = e.exceptions[0]
    return e


async def scenario(url: str, connect: Connect, probe: Probe) -> None:
    token = os.environ.get(TOKEN_ENV)
    check(bool(token), f"{TOKEN_ENV} is not set: tests/it/clients.rs passes the bearer token there")
    seen = Seen()
    async with connect(url, token, seen) as (client, hello):
        await session_steps(client, hello, seen)
    report("end", delete_status=seen.delete_status)

    check(seen.session_id is not None, "no MCP-Session-Id header was seen")
    status = await probe(
        url,
        {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "authorization": f"Bearer {token}",
            "mcp-session-id": seen.session_id or "",
            "mcp-protocol-version": PROTOCOL,
        },
        json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/list"}),
    )
    report("gone", status=status)

    check(
        not COMPLAINTS.records,
        "the SDK logged warnings/errors during the session: " + " | ".join(COMPLAINTS.records),
    )
    REFUSALS_MAY_LOG[0] = True
    wrong = await refused(url, "axg_wrong-token-for-tests-only-0123456789abcdefghij", connect)
    missing = await refused(url, None, connect)
    report("auth", wrong=wrong, missing=missing, sdk_logged=len(COMPLAINTS.records))


def first_check_failure(e: BaseException) -> CheckFailed | None:
    """The CheckFailed inside `e`, which anyio's task groups may have wrapped in groups."""
    if isinstance(e, CheckFailed):
        return e
    for inner in getattr(e, "exceptions", ()) or ():
        found = first_check_failure(inner)
        if found is not None:
            return found
    return None


def guarded(work: Awaitable[None]) -> int:
    """Runs `work` under the overall timeout, failing on any SDK complaint; the exit code."""
    logging.getLogger().addHandler(COMPLAINTS)
    try:
        asyncio.run(asyncio.wait_for(work, timeout=OVERALL_S))
    except TimeoutError:
        report("fail", error=f"gave up after {OVERALL_S:.0f} s")
        return 1
    except BaseException as e:  # noqa: BLE001 - report anything the SDK raised, with its cause
        failed = first_check_failure(e)
        if failed is None:
            traceback.print_exc()
            failed = e
        report("fail", error=f"{type(failed).__name__}: {failed}")
        return 1
    if COMPLAINTS.records and not REFUSALS_MAY_LOG[0]:
        report("fail", error="the SDK logged warnings/errors: " + " | ".join(COMPLAINTS.records))
        return 1
    report("pass")
    return 0


def main(connect: Connect, probe: Probe) -> int:
    return run(lambda url: scenario(url, connect, probe))


def bearer_http(token: str | None = None) -> Any:
    """An httpx2 client (mcp 2.x) that sends `token` (else [TOKEN_ENV]'s) on every request."""
    import httpx2

    token = token or os.environ[TOKEN_ENV]
    headers = {"authorization": f"Bearer {token}"}
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=120.0))


async def announce(client: Any) -> None:
    """Reports what an mcp 2.x client connected to, and the tools it lists."""
    from importlib.metadata import version

    info = client.server_info
    check(info is not None, "discover: no serverInfo")
    report("connect", protocol=client.protocol_version, server=info.name, sdk=f"mcp {version('mcp')}")
    tools = await client.list_tools()
    report("tools/list", tools=sorted(t.name for t in tools.tools))


def run(work: Callable[[str], Awaitable[None]]) -> int:
    """Runs `work(url)` for the one argument, a server's MCP URL, guarded; the exit code."""
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} http://127.0.0.1:PORT/mcp", file=sys.stderr)
        return 2
    return guarded(work(sys.argv[1]))
