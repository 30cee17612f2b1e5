#!/usr/bin/env python3
"""The Form task through the official Python MCP SDK 2.x in its default `auto` mode, which
speaks the sessionless 2026-07-28 revision: every request stands alone, so the client can only
use what one result tells the next request. axgate's sessionless results name elements by path
(a handle would not outlive the request); this script uses nothing else.

Usage: CLIENT_CHECK_TOKEN=<bearer token> form_task.py http://127.0.0.1:PORT/mcp

Steps, as an agent would take them: read the Form app's tree and take the Name field's path
from it; find Email, Password and Submit and take their paths from the matches; fill Name and
Email (set_value), type the password (type_text), press Submit (click), wait for the status
label, and read the confirmation it shows. Every result is checked for handles (none may
appear, in structured content or text). Each step prints one JSON line (see checks.py);
tests/it/clients.rs asserts on them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checks  # noqa: E402 - the shared steps live beside this script

HANDLE = re.compile(r"\be\d+\b")
NAME = "Ada Lovelace"


def handles_in(value: Any) -> list[str]:
    """Every `handle` field anywhere in a structured result."""
    if isinstance(value, dict):
        found = [str(value["handle"])] if "handle" in value else []
        return found + [h for v in value.values() for h in handles_in(v)]
    if isinstance(value, list):
        return [h for v in value for h in handles_in(v)]
    return []


async def call(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Calls a tool; its result must succeed and carry no handle."""
    result = await client.call_tool(tool, {"app": checks.APP, **args})
    out = checks.structured(result, tool)
    text = checks.text_of(result)
    checks.check(not handles_in(out), f"{tool}: handles in a sessionless result: {handles_in(out)}")
    checks.check(not HANDLE.search(text), f"{tool}: a handle in the text: {text!r}")
    return {"out": out, "text": text}


async def path_of(client: Any, role: str, title: str) -> str:
    found = await call(client, "find", {"role": role, "title": title})
    matches = found["out"].get("matches") or []
    checks.check(len(matches) == 1, f"find {role} {title!r}: {len(matches)} matches")
    path = matches[0]["path"]
    checks.check(path in found["text"], f"find: the text does not name {path}")
    return path


async def scenario(url: str) -> None:
    async with checks.bearer_http() as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode="auto", read_timeout_seconds=60) as client:
            checks.report("connect", protocol=client.protocol_version)

            tree = await call(client, "get_tree", {"nodes": True})
            fields = [
                n
                for n in tree["out"].get("nodes") or []
                if n.get("role") == "text_field" and n.get("title") == "Name"
            ]
            checks.check(len(fields) == 1, f"get_tree: {len(fields)} Name fields")
            name = fields[0]["path"]
            checks.check(name in tree["text"], f"get_tree: the text does not name {name}")
            email = await path_of(client, "text_field", "Email")
            password = await path_of(client, "secure_text_field", "Password")
            submit = await path_of(client, "button", "Submit")
            status = await path_of(client, "static_text", "Status")
            checks.report("paths", name=name, email=email, password=password, submit=submit)

            await call(client, "set_value", {"target": name, "value": NAME})
            await call(client, "set_value", {"target": email, "value": "ada@example.com"})
            await call(client, "type_text", {"target": password, "text": "correct horse"})
            clicked = await call(client, "click", {"target": submit})
            checks.report("submit", verified=clicked["out"].get("verified"))
            waited = await call(
                client,
                "wait_for",
                {"target": status, "condition": "value_contains", "value": "Submitted", "timeout_ms": 5000},
            )
            checks.check(waited["out"].get("satisfied") is True, f"wait_for: {waited['text']}")
            shown = await call(client, "get_element", {"target": status})
            checks.report("confirmation", status=shown["out"]["element"].get("value"))


if __name__ == "__main__":
    sys.exit(checks.run(scenario))
