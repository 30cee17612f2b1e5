#!/usr/bin/env python3
"""Drives a running axgate through the official Python MCP SDK (2.x), as a real client would.

Usage: client_check.py http://127.0.0.1:PORT/mcp

Against a fresh server with the demo backend (tests/clients.rs starts one per test), it:
initializes a session (legacy handshake mode: the 2.x client would otherwise probe for the
sessionless 2026-07-28 revision first), lists the tools, reads the Form app's tree, presses the
"Subscribe" check box, reads the tree again, waits for the server's per-call log notifications,
ends the session with DELETE and checks that the server has forgotten it.

Prints one line per step. Exits 0 on success; 1 with a "FAIL ..." line otherwise. Any warning or
error that the SDK logs along the way (for example "Session termination failed") is a failure
too: it is what a user of the SDK would see.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
import traceback
import warnings
from importlib.metadata import version
from typing import Any

import httpx2
import mcp
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

APP = "Form"
CHECK_BOX = "window[0]/check_box[0]"
TITLE = "Subscribe"
# Each tools/call makes the server log one `tool_call` record at info level (src/mcp/server.rs).
LOG_WAIT_S = 10.0
OVERALL_S = 90.0
FRESH_HINT = (
    " (the demo desktop is shared by every session of a server: run this against a fresh one)"
)


class CheckFailed(Exception):
    """One step's expectation did not hold."""


def step(name: str, detail: str) -> None:
    print(f"ok   {name}: {detail}", flush=True)


def check(cond: bool, message: str) -> None:
    if not cond:
        raise CheckFailed(message)


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


def find_check_box(result: Any, when: str) -> dict[str, Any]:
    check(not result.is_error, f"get_tree ({when}) returned isError: {text_of(result)}")
    sc = result.structured_content
    check(isinstance(sc, dict), f"get_tree ({when}) has no structuredContent")
    nodes = sc.get("nodes")
    check(isinstance(nodes, list) and nodes, f"get_tree ({when}): structuredContent.nodes is empty")
    check(sc.get("app") == APP, f"get_tree ({when}): app is {sc.get('app')!r}, expected {APP!r}")
    boxes = [n for n in nodes if n.get("role") == "check_box" and n.get("title") == TITLE]
    check(
        len(boxes) == 1,
        f"get_tree ({when}): expected one check_box titled {TITLE!r}, found {len(boxes)} "
        f"among {len(nodes)} nodes",
    )
    box = boxes[0]
    check(box.get("path") == CHECK_BOX, f"check box path is {box.get('path')!r}, expected {CHECK_BOX!r}")
    return box


def text_of(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in (result.content or []))


async def run(url: str) -> None:
    log_records: list[dict[str, Any]] = []
    http_seen: dict[str, Any] = {"delete_status": None, "session_id": None}

    async def on_log(params: Any) -> None:
        data = params.data if isinstance(params.data, dict) else {}
        log_records.append({"level": str(params.level), "logger": params.logger, **data})

    async def on_response(response: httpx2.Response) -> None:
        sid = response.headers.get("mcp-session-id")
        if sid and http_seen["session_id"] is None:
            http_seen["session_id"] = sid
        if response.request.method == "DELETE":
            http_seen["delete_status"] = response.status_code

    http = httpx2.AsyncClient(
        timeout=httpx2.Timeout(30.0, read=300.0),
        event_hooks={"response": [on_response]},
    )
    async with http:
        transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
        async with Client(transport, mode="legacy", logging_callback=on_log, read_timeout_seconds=60) as client:
            info = client.server_info
            check(info is not None, "initialize: no serverInfo")
            check(http_seen["session_id"] is not None, "initialize: no MCP-Session-Id header")
            step(
                "initialize",
                f"protocol {client.protocol_version}, server {info.name} {info.version}, "
                f"session {http_seen['session_id']} (mcp {mcp_version()}, mode=legacy)",
            )
            check(
                client.protocol_version == "2025-11-25",
                f"negotiated {client.protocol_version!r}, expected '2025-11-25'",
            )
            check(
                client.server_capabilities.logging is not None,
                "server does not advertise the logging capability",
            )

            with warnings.catch_warnings():
                # logging/setLevel is deprecated by 2026-07-28, but it is the 2025-11-25 way.
                warnings.simplefilter("ignore")
                await client.set_logging_level("info")
            step("logging/setLevel", "info")

            tools = await client.list_tools()
            names = sorted(t.name for t in tools.tools)
            for needed in ("get_tree", "perform_action"):
                check(needed in names, f"tools/list lacks {needed!r}: {names}")
            step("tools/list", ", ".join(names))

            calls: list[str] = []

            before = await client.call_tool("get_tree", {"app": APP})
            calls.append("get_tree")
            box = find_check_box(before, "before")
            check(box.get("value") is False, f"{TITLE!r} value is {box.get('value')!r}, expected false{FRESH_HINT}")
            step(
                "get_tree",
                f"{len(before.structured_content['nodes'])} nodes; check_box {TITLE!r} at {box['path']} "
                f"= {json.dumps(box['value'])}",
            )

            acted = await client.call_tool("perform_action", {"app": APP, "target": CHECK_BOX, "action": "press"})
            calls.append("perform_action")
            check(not acted.is_error, f"perform_action returned isError: {text_of(acted)}")
            out = acted.structured_content
            check(isinstance(out, dict), "perform_action has no structuredContent")
            element = out.get("element") or {}
            check(out.get("tool") == "perform_action" and out.get("verified") is True, f"perform_action result: tool {out.get('tool')!r}, verified {out.get('verified')!r}")
            check(element.get("path") == CHECK_BOX, f"perform_action element path {element.get('path')!r}")
            check(
                element.get("value") is True,
                f"after press the element value is {element.get('value')!r}, expected true",
            )
            step("perform_action", f"press {CHECK_BOX} -> value {json.dumps(element['value'])}")

            after = await client.call_tool("get_tree", {"app": APP})
            calls.append("get_tree")
            box = find_check_box(after, "after")
            check(box.get("value") is True, f"get_tree after press: value is {box.get('value')!r}, expected true")
            step("get_tree", f"check_box {TITLE!r} = {json.dumps(box['value'])} (the press took effect)")

            # Each call's log record travels on the session's GET stream, not the call's own
            # stream. Wait for all of them, so that none is still in flight when we hang up.
            deadline = time.monotonic() + LOG_WAIT_S
            while len([r for r in log_records if r.get("event") == "tool_call"]) < len(calls):
                if time.monotonic() > deadline:
                    raise CheckFailed(
                        f"expected {len(calls)} tool_call log notifications within {LOG_WAIT_S:.0f} s, "
                        f"got {log_records}"
                    )
                await asyncio.sleep(0.02)
            tools_logged = [r.get("tool") for r in log_records if r.get("event") == "tool_call"]
            check(tools_logged == calls, f"tool_call log records name {tools_logged}, expected {calls}")
            bad = [r for r in log_records if r.get("outcome") != "ok"]
            check(not bad, f"log records with outcome other than ok: {bad}")
            step("notifications/message", f"{len(tools_logged)} tool_call records: {', '.join(tools_logged)}")

        # Leaving the Client closes the transport, which sends DELETE with the session id.
        status = http_seen["delete_status"]
        check(status is not None, "no DELETE was sent when the session ended")
        check(
            status in (200, 204),
            f"DELETE answered {status}; the Python SDK treats anything but 200, 204 (or 405) as a "
            "failed termination",
        )
        step("end session", f"DELETE answered {status}")

        probe = await http.post(
            url,
            headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "mcp-session-id": http_seen["session_id"],
                "mcp-protocol-version": "2025-11-25",
            },
            content=json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/list"}),
        )
        check(probe.status_code == 404, f"a request on the ended session answered {probe.status_code}, expected 404")
        step("session gone", "a request with the old session id answers 404")


def first_check_failure(e: BaseException) -> CheckFailed | None:
    """The CheckFailed inside `e`, which anyio's task groups may have wrapped in groups."""
    if isinstance(e, CheckFailed):
        return e
    if isinstance(e, BaseExceptionGroup):
        for inner in e.exceptions:
            found = first_check_failure(inner)
            if found is not None:
                return found
    return None


def mcp_version() -> str:
    return version(mcp.__name__)


def main() -> int:
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} http://127.0.0.1:PORT/mcp", file=sys.stderr)
        return 2
    url = sys.argv[1]
    complaints = SdkComplaints()
    logging.getLogger().addHandler(complaints)
    try:
        asyncio.run(asyncio.wait_for(run(url), timeout=OVERALL_S))
    except TimeoutError:
        print(f"FAIL gave up after {OVERALL_S:.0f} s", flush=True)
        return 1
    except BaseException as e:  # noqa: BLE001 - report anything the SDK raised, with its cause
        failed = first_check_failure(e)
        if failed is None:
            traceback.print_exc()
            print(f"FAIL {type(e).__name__}: {e}", flush=True)
        else:
            print(f"FAIL {failed}", flush=True)
        return 1
    if complaints.records:
        print(
            f"FAIL the SDK logged {len(complaints.records)} warning(s)/error(s): "
            + " | ".join(complaints.records),
            flush=True,
        )
        return 1
    print("PASS python SDK client drove the Form app", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
