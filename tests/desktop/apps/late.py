#!/usr/bin/python3
"""A Submit button whose effect comes 800 ms after the click, as a network call would: the
"Submitted N" label counts every actuation (pressed by its accessible action or by a real
pointer click alike). Prints submit-clicked and submitted=N."""

import common
from common import Gtk, say
from gi.repository import GLib  # noqa: E402

win = common.window("Late", 300, 160)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, margin=20)
win.add(box)
status = Gtk.Label(label="Submitted 0")
count = [0]


def land():
    count[0] += 1
    say("submitted=%d" % count[0])
    status.set_text("Submitted %d" % count[0])
    return False


def clicked(_button):
    say("submit-clicked")
    GLib.timeout_add(800, land)


button = Gtk.Button(label="Submit")
button.connect("clicked", clicked)
box.pack_start(button, True, True, 0)
box.pack_start(status, False, False, 0)

common.listen(status)
common.run(win)
