#!/usr/bin/env python3
"""Drives a destructive-act confirmation through the official Python MCP SDK 2.x in its default
`auto` mode, where it speaks the sessionless 2026-07-28 revision: axgate cannot send a
server-to-client elicitation there, so it answers the press with an input-required result
(SEP-2322, MRTR); the SDK fulfils its elicitation through this client's elicitation callback,
which accepts, and retries the call with the answer and the echoed requestState.

Usage: CLIENT_CHECK_TOKEN=<bearer token> confirm_check.py http://127.0.0.1:PORT/mcp

The server is configured so that a press on the Form app's "Subscribe" check box needs
confirmation (`policy.confirm_words = ["subscribe"]`). The script connects (the negotiated
revision must be 2026-07-28), lists the tools and presses the check box; it reports what the
callback was asked and the pressed element's value. Every step prints one JSON line (see
checks.py); tests/it/clients.rs asserts on them and on the app's state.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitResult

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checks  # noqa: E402 - the shared steps live beside this script


async def scenario(url: str) -> None:
    asked: list[dict[str, Any]] = []

    async def accept(context: Any, params: Any) -> ElicitResult:
        schema = getattr(params, "requested_schema", None) or {}
        asked.append(
            {
                "mode": getattr(params, "mode", None),
                "message": getattr(params, "message", ""),
                "fields": sorted((schema.get("properties") or {}).keys()),
            }
        )
        return ElicitResult(action="accept", content={"confirm": True})

    async with checks.bearer_http() as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(
            transport, mode="auto", read_timeout_seconds=60, elicitation_callback=accept
        ) as client:
            await checks.announce(client)
            element = await checks.press(client)
            checks.report("confirmed", asked=asked, pressed=element.get("value"))


if __name__ == "__main__":
    sys.exit(checks.run(scenario))
