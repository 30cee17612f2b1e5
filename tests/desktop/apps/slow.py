#!/usr/bin/python3
"""An app that becomes slow to answer: `freeze SECONDS` on stdin blocks its main loop, so
every AT-SPI call to it waits. Otherwise a label and a button."""

import common
from common import Gtk, name, say

win = common.window("Slow", 260, 120)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6, margin=12)
win.add(box)
status = Gtk.Label(label="awake")
button = Gtk.Button(label="Poke")
button.connect("clicked", lambda _b: say("clicked=Poke"))
box.add(status)
box.add(button)

common.listen(status)
common.run(win)
