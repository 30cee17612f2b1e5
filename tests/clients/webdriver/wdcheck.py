"""What the Python WebDriver client scripts share (appium_suite.py, selenium_suite.py): the
JSON-lines report, the verdict, a PNG decoder and the smaller Mac2-style suite both clients run
against axgate's demo TextEdit. Each script only knows how its client connects and names its
locator strategies.

Every step prints one JSON line `{"step": ..., ...}`; tests/it/webdriver/clients.rs asserts on
those fields. A failure prints `{"step": "fail", "error": ...}` and exits 1; success ends with
`{"step": "pass"}`. The token comes from WD_TOKEN (never the command line: ps shows that).
"""

from __future__ import annotations

import base64
import os
import re
import struct
import sys
import traceback
import zlib
from pathlib import Path
from collections.abc import Callable
from typing import Any

TOKEN_ENV = "WD_TOKEN"
TEXT_VIEW = "First Text View"


# The JSON-lines report and its checks are the MCP client scripts' (stdlib only).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
from checks import CheckFailed, check, report  # noqa: E402


def png(data: bytes | str) -> dict[str, Any]:
    """Decodes a PNG far enough to know it is one: the signature, IHDR, and the IDAT stream
    inflated to exactly the rows its width, height and colour type promise (8-bit samples)."""
    raw = base64.b64decode(data) if isinstance(data, str) else data
    if raw[:8] != b"\x89PNG\r\n\x1a\n":
        return {"png": False, "width": 0, "height": 0}
    at, header, idat = 8, b"", b""
    while at + 8 <= len(raw):
        (length,) = struct.unpack(">I", raw[at : at + 4])
        kind = raw[at + 4 : at + 8]
        body = raw[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
        if kind == b"IEND":
            break
    if len(header) < 13:
        return {"png": False, "width": 0, "height": 0}
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour)
    rows = zlib.decompress(idat)
    ok = depth == 8 and channels is not None and len(rows) == height * (1 + width * channels)
    return {"png": ok, "width": width, "height": height}


def root_of(source: str) -> str | None:
    """The page source's root element name."""
    found = re.search(r"<(XCUIElement\w+)", source)
    return found.group(1) if found else None


def raised(call: Callable[[], Any]) -> str | None:
    """The exception class a client call raised, or None."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the class is what is reported
        return type(error).__name__
    return None


def suite(driver: Any, by: dict[str, str], errors: Any, plain_selenium: bool = False) -> None:
    """The smaller suite: a find by each strategy the client names in `by`, click, send keys,
    text, clear, attributes, rect, the states, page source, screenshots, a stale element and
    a missing one, each as the client raises it (`errors`: the client's exceptions module).

    Plain Selenium reads attributes with `get_dom_attribute` (its `get_attribute` and
    `is_displayed` run JavaScript atoms through execute/sync, which no Mac2 server runs); what
    `is_displayed` raises there is reported instead of its answer."""

    def attr(element: Any, name: str) -> Any:
        return element.get_dom_attribute(name) if plain_selenium else element.get_attribute(name)

    caps = driver.capabilities
    report(
        "session",
        platformName=caps.get("platformName"),
        automationName=caps.get("automationName"),
        browserName=caps.get("browserName"),
    )
    selectors = {
        "accessibility id": TEXT_VIEW,
        "class name": "XCUIElementTypeTextView",
        "predicate string": 'elementType == 52 AND identifier == "First Text View"',
        "class chain": "**/XCUIElementTypeScrollView/XCUIElementTypeTextView",
        "xpath": '//XCUIElementTypeTextView[@identifier="First Text View"]',
    }
    found = {
        strategy: attr(driver.find_element(by[strategy], value), "identifier")
        for strategy, value in selectors.items()
    }
    markers = driver.find_elements(
        by["class chain"], '**/XCUIElementTypeRulerMarker[`label == "left tab stop"`]'
    )
    group = driver.find_element(by["accessibility id"], "alignment")
    radios = group.find_elements(by["class name"], "XCUIElementTypeRadioButton")
    report("find", found=found, tab_stops=len(markers), radios=len(radios))

    text = driver.find_element(by["accessibility id"], TEXT_VIEW)
    text.click()
    text.send_keys("Hello axgate")
    typed = text.text
    text.clear()
    cleared = text.text
    bold = driver.find_element(by["accessibility id"], "bold")
    bold.click()
    typeface = driver.find_element(by["accessibility id"], "typeface")
    report(
        "interact",
        typed=typed,
        cleared=cleared,
        typeface=attr(typeface, "value"),
        bold_value=attr(bold, "value"),
    )

    left = driver.find_element(by["accessibility id"], "align_left")
    report(
        "read",
        label=attr(typeface, "label"),
        element_type=attr(typeface, "elementType"),
        name=typeface.tag_name,
        rect=typeface.rect,
        enabled=typeface.is_enabled(),
        displayed=raised(typeface.is_displayed) if plain_selenium else typeface.is_displayed(),
        left_selected=left.is_selected(),
    )

    source = driver.page_source
    report(
        "source",
        xml=source.startswith("<?xml"),
        root=root_of(source),
        screen=png(driver.get_screenshot_as_png()),
        element=png(typeface.screenshot_as_png),
    )

    typeface.click()
    item = driver.find_element(by["predicate string"], 'elementType == 54 AND title == "Light"')
    item.click()
    report(
        "errors",
        value=attr(typeface, "value"),
        stale=raised(lambda: item.text),
        missing=raised(lambda: driver.find_element(by["accessibility id"], "no-such-thing")),
        bad=raised(lambda: driver.find_element(by["predicate string"], "label ===")),
        stale_is_client_class=isinstance(_caught(lambda: item.text), errors.StaleElementReferenceException),
    )


def _caught(call: Callable[[], Any]) -> BaseException | None:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - returned for an isinstance check
        return error
    return None


def main(script: str, run: Callable[[str, str], None]) -> int:
    """Runs `run(base_url, token)` with the base URL from the command line; the exit code."""
    token = os.environ.get(TOKEN_ENV)
    if len(sys.argv) != 2 or not token:
        print(f"usage: {TOKEN_ENV}=... python {script} http://127.0.0.1:PORT", file=sys.stderr)
        return 2
    try:
        run(sys.argv[1], token)
    except CheckFailed as failed:
        report("fail", error=f"CheckFailed: {failed}")
        return 1
    except Exception as error:  # noqa: BLE001 - any failure is the verdict
        traceback.print_exc()
        report("fail", error=f"{type(error).__name__}: {error}")
        return 1
    report("pass")
    return 0
