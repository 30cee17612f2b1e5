#!/usr/bin/python3
"""A form: a Name entry, a Subscribe check button, a Volume slider, a Count spin button, a
Greet button (writes "Hello, NAME" into the status label) and a Clear button (empties the
entry). Prints every change: name=, subscribe=, volume=, count=, clicked=, status=."""

import common
from common import Gtk, name, say

win = common.window("Form", 420, 320)
grid = Gtk.Grid(row_spacing=6, column_spacing=6, margin=12)
win.add(grid)

grid.attach(Gtk.Label(label="Name"), 0, 0, 1, 1)
entry = name(Gtk.Entry(), "Name")
entry.connect("changed", lambda e: say("name=" + e.get_text()))
grid.attach(entry, 1, 0, 1, 1)

check = Gtk.CheckButton(label="Subscribe")
check.connect("toggled", lambda c: say("subscribe=" + str(c.get_active())))
grid.attach(check, 1, 1, 1, 1)

grid.attach(Gtk.Label(label="Volume"), 0, 2, 1, 1)
scale = name(Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1), "Volume")
scale.set_value(20)
scale.set_hexpand(True)
scale.connect("value-changed", lambda s: say("volume=%g" % s.get_value()))
grid.attach(scale, 1, 2, 1, 1)

grid.attach(Gtk.Label(label="Count"), 0, 3, 1, 1)
spin = name(Gtk.SpinButton.new_with_range(0, 10, 1), "Count")
spin.connect("value-changed", lambda s: say("count=%g" % s.get_value()))
grid.attach(spin, 1, 3, 1, 1)

status = Gtk.Label(label="idle")
status.connect("notify::label", lambda l, _p: say("status=" + l.get_text()))
grid.attach(status, 1, 5, 1, 1)


buttons = common.buttons(
    ("Greet", lambda: status.set_text("Hello, " + entry.get_text())),
    ("Clear", lambda: entry.set_text("")),
)
grid.attach(buttons, 1, 4, 1, 1)

common.listen(status)
common.run(win)
