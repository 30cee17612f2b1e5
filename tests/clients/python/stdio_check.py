#!/usr/bin/env python3
"""Drives `axgate serve --stdio` through the official Python MCP SDK 2.x's stdio client, as a
local MCP host would: the SDK starts the binary as its child and speaks JSON-RPC over its
stdin/stdout.

Usage: stdio_check.py AXGATE_BINARY CONFIG_FILE STDERR_LOG

It initializes, lists the tools, reads the Form app's tree, presses the "Subscribe" check box
and reads the effect back, then closes the session (the SDK closes the child's stdin). The
child's stderr (its logs) goes to STDERR_LOG for tests/it/stdio.rs to inspect. Any line on the
child's stdout that is not a JSON-RPC message makes the SDK log an error, which fails the
check: so a pass also shows stdout carried only protocol messages.

Every step prints one JSON line `{"step": ..., ...}` (see checks.py); the environment given to
the child is this process's own (tests/it/stdio.rs strips every AXGATE_* variable first).
"""

from __future__ import annotations

import asyncio
import os
import sys
from importlib.metadata import version
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checks  # noqa: E402 - the shared steps live beside this script


async def scenario(binary: str, config: str, errlog_path: str) -> None:
    params = StdioServerParameters(
        command=binary,
        args=["serve", "--stdio", "--backend", "demo", "--config", config],
        env=dict(os.environ),
    )
    with open(errlog_path, "w", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy", read_timeout_seconds=60) as client:
            info = client.server_info
            checks.check(info is not None, "initialize: no serverInfo")
            checks.report(
                "initialize",
                protocol=client.protocol_version,
                server=info.name,
                server_version=info.version,
                sdk=f"mcp {version('mcp')}",
            )
            tools = await client.list_tools()
            checks.report("tools/list", tools=sorted(t.name for t in tools.tools))
            before = checks.check_box_value(await client.call_tool("get_tree", {"app": checks.APP, "nodes": True}))
            element = await checks.press(client)
            after = checks.check_box_value(await client.call_tool("get_tree", {"app": checks.APP, "nodes": True}))
            checks.report("call", before=before, pressed=element.get("value"), after=after)
    checks.report("closed")


def main() -> int:
    if len(sys.argv) != 4:
        print(f"usage: {sys.argv[0]} AXGATE_BINARY CONFIG_FILE STDERR_LOG", file=sys.stderr)
        return 2
    return checks.guarded(scenario(*sys.argv[1:4]))


if __name__ == "__main__":
    sys.exit(main())
