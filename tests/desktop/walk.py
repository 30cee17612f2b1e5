#!/usr/bin/python3
"""Reference walk with pyatspi (the classic AT-SPI client): finds the app named argv[1] on
the desktop and walks its whole tree recursively, reading role, name, states and frame per
node — the same attribute set axgate's get_tree returns. Prints one JSON object:
{"seconds": walk time, "nodes": [{"depth", "role", "role_name", "name", "states", "frame"}]}.
Used by tests/atspi.rs (tree comparison) and benches/atspi.rs (the baseline)."""

import json
import sys
import time

import pyatspi


def find_app(name, wait=10.0):
    until = time.time() + wait
    while time.time() < until:
        desktop = pyatspi.Registry.getDesktop(0)
        for app in desktop:
            if app is not None and app.name == name:
                return app
        time.sleep(0.1)
    raise SystemExit("no app named %r on the desktop" % name)


def walk(acc, depth, out):
    try:
        role = acc.getRole()
        node = {
            "depth": depth,
            "role": int(role),
            "role_name": acc.getRoleName(),
            "name": acc.name,
            "states": sorted(int(s) for s in acc.getState().getStates()),
            "frame": None,
        }
        try:
            ext = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            node["frame"] = [ext.x, ext.y, ext.width, ext.height]
        except NotImplementedError:
            pass
        out.append(node)
        for i in range(acc.childCount):
            child = acc.getChildAtIndex(i)
            if child is not None:
                walk(child, depth + 1, out)
    except Exception as e:  # an object vanished mid-walk
        out.append({"depth": depth, "error": str(e)})


def main():
    app = find_app(sys.argv[1])
    out = []
    started = time.perf_counter()
    walk(app, 0, out)
    seconds = time.perf_counter() - started
    json.dump({"seconds": seconds, "nodes": out}, sys.stdout)


if __name__ == "__main__":
    main()
