#!/usr/bin/env python3
"""Calls every axgate tool once through the official Python MCP SDK 2.x, in the order of
tests/clients/every_tool.json (the same list the Inspector and the TypeScript SDK run).

Usage: CLIENT_CHECK_TOKEN=<bearer token> OTHER_SESSION_TAG=<tag> every_tool.py MODE URL

MODE `legacy` makes a session (2025-11-25); `auto` lets the SDK probe `server/discover` and
speak the sessionless 2026-07-28 revision, where a call the list marks `session` is expected to
fail with a message that names the session. `$OTHER_SESSION_TAG` in an argument becomes the tag
of another principal's session, which the harness opened for `end_session`. Prints one JSON line
per call (`{"step": "call", "tool", "is_error", "structured", "image", "text"}`), then the
`pass` or `fail` line of checks.py; tests/it/every_tool.rs asserts on them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checks  # noqa: E402 - the shared steps live beside this script

CALLS = Path(__file__).resolve().parent.parent / "every_tool.json"


def arguments(call: dict, other: str) -> dict:
    return json.loads(json.dumps(call["args"]).replace("$OTHER_SESSION_TAG", other))


async def scenario(mode: str, url: str) -> None:
    token = os.environ[checks.TOKEN_ENV]
    other = os.environ.get("OTHER_SESSION_TAG", "")
    calls = json.loads(CALLS.read_text(encoding="utf-8"))["calls"]
    headers = {"authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=120.0)) as http:
        transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
        async with Client(transport, mode=mode, read_timeout_seconds=60) as client:
            checks.report("connect", protocol=client.protocol_version)
            for call in calls:
                result = await client.call_tool(call["tool"], arguments(call, other))
                checks.report(
                    "call",
                    tool=call["tool"],
                    is_error=bool(checks.field_of(result, "is_error", "isError")),
                    structured=checks.field_of(result, "structured_content", "structuredContent") is not None,
                    image=any(getattr(c, "type", "") == "image" for c in result.content or []),
                    text=checks.text_of(result)[:300],
                )


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("legacy", "auto"):
        print(f"usage: {sys.argv[0]} legacy|auto http://127.0.0.1:PORT/mcp", file=sys.stderr)
        return 2
    return checks.guarded(scenario(sys.argv[1], sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
