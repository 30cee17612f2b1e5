#!/usr/bin/python3
"""An app that becomes slow to answer: `freeze SECONDS` on stdin blocks its main loop, so
every AT-SPI call to it waits. Otherwise a label and a button."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib  # noqa: E402

GLib.set_prgname("axgate-slow")
from gi.repository import Gtk  # noqa: E402

import common  # noqa: E402
from common import name, say  # noqa: E402

win = Gtk.Window(title="Slow")
win.set_default_size(260, 120)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6, margin=12)
win.add(box)
status = Gtk.Label(label="awake")
button = Gtk.Button(label="Poke")
button.connect("clicked", lambda _b: say("clicked=Poke"))
box.add(status)
box.add(button)

common.listen(status)
common.run(win)
