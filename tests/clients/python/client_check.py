#!/usr/bin/env python3
"""Drives a running axgate through the official Python MCP SDK 2.x, as a real client would.

Usage: CLIENT_CHECK_TOKEN=<bearer token> client_check.py http://127.0.0.1:PORT/mcp

The steps and their JSON-lines output are in checks.py; this file only says how SDK 2.x
connects: `Client(streamable_http_client(...), mode="legacy")` over an httpx2 client that sends
`Authorization: Bearer` (legacy mode: 2.x would otherwise probe for the sessionless 2026-07-28
revision first), with `terminate_on_close` so that leaving the client sends DELETE. SDK 2.x
reconnects a broken request stream by itself, with Last-Event-ID, when the stream carried an
event id (`StreamableHTTPTransport._handle_sse_response` → `_handle_reconnection`).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checks  # noqa: E402 - the shared steps live beside this script


def http_client(token: str | None, seen: checks.Seen) -> httpx2.AsyncClient:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(30.0, read=300.0),
        event_hooks={"response": [seen.on_response]},
    )


@asynccontextmanager
async def connect(url: str, token: str | None, seen: checks.Seen) -> AsyncIterator[tuple[Any, checks.Hello]]:
    async with http_client(token, seen) as http:
        transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
        async with Client(
            transport,
            mode="legacy",
            logging_callback=seen.on_log,
            message_handler=seen.on_message,
            read_timeout_seconds=90,
        ) as client:
            info = client.server_info
            checks.check(info is not None, "initialize: no serverInfo")
            hello = checks.Hello(
                protocol=client.protocol_version,
                server_name=info.name,
                server_version=info.version,
                sdk=f"mcp {version('mcp')}",
                session_id=seen.session_id,
            )
            yield client, hello


if __name__ == "__main__":
    sys.exit(checks.main(connect, checks.prober(httpx2)))
