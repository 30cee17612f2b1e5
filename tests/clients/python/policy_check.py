#!/usr/bin/env python3
"""Read-only mode and the app deny-list as the official Python MCP SDK (2.x) sees them.

Usage: CLIENT_CHECK_TOKEN=<bearer token> policy_check.py URL

Connects with `Authorization: Bearer TOKEN` to an axgate started by tests/it/clients_policy.rs
with `policy.read_only = true` and `policy.deny_apps = ["Editor"]`, and prints one JSON line
per step (`{"step": ..., ...}`) for the Rust test to assert on: the tool names listed, the
result of a click (refused by read-only mode), of reading the denied Editor and of reading
Form. Exits 1 with a "FAIL" line if the SDK itself fails.
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checks  # noqa: E402 - the shared steps live beside this script



def outcome(result: Any) -> dict[str, Any]:
    text = " ".join(getattr(block, "text", "") for block in result.content)
    return {"is_error": bool(result.is_error), "text": text}


async def main(url: str) -> None:
    async with checks.bearer_http() as http:
        transport = streamable_http_client(url, http_client=http, terminate_on_close=True)
        async with Client(transport, mode="legacy", read_timeout_seconds=60) as client:
            tools = await client.list_tools()
            checks.report("tools/list", names=sorted(t.name for t in tools.tools))
            click = await client.call_tool(
                "click", {"app": "Form", "target": 'window[0]/button["Submit"]'}
            )
            checks.report("click", **outcome(click))
            editor = await client.call_tool("get_tree", {"app": "Editor"})
            checks.report("get_tree Editor", **outcome(editor))
            form = await client.call_tool("get_tree", {"app": "Form"})
            checks.report("get_tree Form", **outcome(form))


if __name__ == "__main__":
    try:
        asyncio.run(asyncio.wait_for(main(sys.argv[1]), timeout=90))
    except Exception:  # noqa: BLE001 - any failure of the SDK is the test's failure
        traceback.print_exc()
        print("FAIL the SDK run did not complete", flush=True)
        sys.exit(1)
