#!/usr/bin/env python3
"""What the official Python MCP SDK (2.x) reports for a call beyond the token's scope.

Usage: CLIENT_CHECK_TOKEN=<bearer token> scope_check.py URL

Connects with a read-only token (`axgate:read`) to an axgate started by
tests/it/clients_policy.rs and calls `set_value`, which needs `axgate:act`. The server answers
403 with an `insufficient_scope` challenge and a JSON-RPC error body; this prints one JSON line
`{"step": "set_value", "raised": ..., "message": ...}` with what the SDK surfaced, so the Rust
test can check that the user sees the scope and how to get it. Exits 1 with a "FAIL" line if
the SDK fails in any other way.
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from pathlib import Path

from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checks  # noqa: E402 - the shared steps live beside this script



async def main(url: str) -> None:
    async with checks.bearer_http() as http:
        transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
        async with Client(transport, mode="legacy", read_timeout_seconds=60) as client:
            try:
                result = await client.call_tool(
                    "set_value",
                    {"app": "Form", "target": "window[0]/text_field[0]", "value": "x"},
                )
                text = " ".join(getattr(b, "text", "") for b in result.content)
                checks.report("set_value", raised=None, is_error=bool(result.is_error), message=text)
            except Exception as error:  # noqa: BLE001 - what the SDK raises is the finding
                checks.report("set_value", raised=type(error).__name__, message=str(error))


if __name__ == "__main__":
    try:
        asyncio.run(asyncio.wait_for(main(sys.argv[1]), timeout=60))
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        print("FAIL the SDK run did not complete", flush=True)
        sys.exit(1)
