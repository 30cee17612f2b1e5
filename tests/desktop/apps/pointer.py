#!/usr/bin/python3
"""A button that only a real pointer click moves: its accessible action (`click`) runs the
"clicked" signal, which does nothing here, while a real button release — which only the
pointer produces — counts. Prints pointer-click=N and status=."""

import common
from common import Gtk, name, say

win = common.window("Pointer", 300, 160)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, margin=20)
win.add(box)
status = Gtk.Label(label="not pressed")
count = [0]


def released(_widget, event):
    if event.button == 1:
        count[0] += 1
        say("pointer-click=%d" % count[0])
        status.set_text("pressed %d" % count[0])
    return False


button = Gtk.Button(label="Stubborn")
button.connect("clicked", lambda _b: say("clicked-signal-ignored"))
button.connect("button-release-event", released)
box.pack_start(button, True, True, 0)
box.pack_start(status, False, False, 0)

common.listen(status)
common.run(win)
