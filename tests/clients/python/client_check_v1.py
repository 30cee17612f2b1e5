#!/usr/bin/env python3
"""Drives a running axgate through the official Python MCP SDK 1.x (`mcp<2`), as a real
client would.

Usage: CLIENT_CHECK_TOKEN=<bearer token> client_check_v1.py http://127.0.0.1:PORT/mcp

The steps and their JSON-lines output are in checks.py; this file only says how SDK 1.x
connects: `streamable_http_client(url, http_client=...)` over an httpx client that sends
`Authorization: Bearer`, and a `ClientSession` on its streams; leaving the transport sends
DELETE (`terminate_on_close`). SDK 1.x reconnects a broken request stream by itself, with
Last-Event-ID, when the stream carried an event id (`StreamableHTTPTransport.
_handle_sse_response` → `_handle_reconnection`). Runs in the second venv that
scripts/test-env builds from requirements-v1.txt.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checks  # noqa: E402 - the shared steps live beside this script


@asynccontextmanager
async def connect(url: str, token: str | None, seen: checks.Seen) -> AsyncIterator[tuple[Any, checks.Hello]]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(
        headers=headers,
        timeout=httpx.Timeout(30.0, read=300.0),
        event_hooks={"response": [seen.on_response]},
    ) as http:
        async with streamable_http_client(url, http_client=http, terminate_on_close=True) as (read, write, _):
            async with ClientSession(
                read,
                write,
                read_timeout_seconds=timedelta(seconds=90),
                logging_callback=seen.on_log,
                message_handler=seen.on_message,
            ) as session:
                init = await session.initialize()
                hello = checks.Hello(
                    protocol=str(init.protocolVersion),
                    server_name=init.serverInfo.name,
                    server_version=init.serverInfo.version,
                    sdk=f"mcp {version('mcp')}",
                    session_id=seen.session_id,
                )
                yield session, hello


if __name__ == "__main__":
    sys.exit(checks.main(connect, checks.prober(httpx)))
