#!/usr/bin/env python3
"""Drives a running axgate through the official Python MCP SDK 2.x in its default `auto` mode,
which probes `server/discover` and, finding the sessionless 2026-07-28 revision, speaks it:
every request carries its version in `_meta`, no session is made.

Usage: CLIENT_CHECK_TOKEN=<bearer token> modern_check.py http://127.0.0.1:PORT/mcp

It connects (the negotiated revision must be 2026-07-28), lists the tools, opens a
`subscriptions/listen` for axgate://app/Form/state, presses the Form app's "Subscribe" check
box while listening and waits for the resource update on the listen stream, leaves the listen,
reads the resource, and calls `lease_app` (which needs a session and must say so). Every step
prints one JSON line (see checks.py); tests/it/clients.rs asserts on them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.subscriptions import ResourceUpdated

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checks  # noqa: E402 - the shared steps live beside this script


async def scenario(url: str) -> None:
    async with checks.bearer_http() as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode="auto", read_timeout_seconds=60) as client:
            await checks.announce(client)

            async with client.listen(resource_subscriptions=[checks.STATE_URI]) as sub:
                honored = list(sub.honored.resource_subscriptions or [])
                checks.report("listen", honored=honored)
                element = await checks.press(client)
                updated = None
                with anyio.fail_after(checks.WAIT_S):
                    async for event in sub:
                        if isinstance(event, ResourceUpdated):
                            updated = event.uri
                            break
                checks.report("updated", uri=updated, pressed=element.get("value"))

            read = await client.read_resource(checks.STATE_URI)
            checks.report("read", uris=[c.uri for c in read.contents])
            lease = await client.call_tool("lease_app", {"app": checks.APP})
            checks.report(
                "lease",
                is_error=bool(checks.field_of(lease, "is_error", "isError")),
                text=checks.text_of(lease),
            )


if __name__ == "__main__":
    sys.exit(checks.run(scenario))
