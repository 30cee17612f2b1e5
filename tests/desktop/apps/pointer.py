#!/usr/bin/python3
"""A button that only a real pointer click moves: its accessible action (`click`) runs the
"clicked" signal, which does nothing here, while a real button release — which only the
pointer produces — counts. Prints pointer-click=N and status=. Below it, what only a pointer
with keys held, a hover or a long press does: a list of rows that selects several (Shift
extends, Control toggles; prints rows=<labels>), a button that prints hovered when the
pointer enters it, and one that prints long-press=<ms> when released 500 ms or more after
its press."""

import time

import common
from common import Gtk, name, say

win = common.window("Pointer", 300, 360)
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

rows = name(Gtk.ListBox(), "Rows")
rows.set_selection_mode(Gtk.SelectionMode.MULTIPLE)
# As a file manager's list: a click selects, keys held with it extend or toggle (a list that
# activates on a single click selects only what it activates).
rows.set_activate_on_single_click(False)
for label in ["One", "Two", "Three"]:
    rows.add(Gtk.Label(label=label))
rows.connect(
    "selected-rows-changed",
    lambda lb: say("rows=" + ",".join(r.get_child().get_text() for r in lb.get_selected_rows())),
)
box.pack_start(rows, False, False, 0)

hover = Gtk.Button(label="Hover")
hover.connect("enter-notify-event", lambda _w, _e: say("hovered") or False)
box.pack_start(hover, False, False, 0)

hold = Gtk.Button(label="Hold")
pressed_at = [0.0]


def hold_down(_widget, event):
    if event.button == 1:
        pressed_at[0] = time.monotonic()
    return False


def hold_up(_widget, event):
    held = int((time.monotonic() - pressed_at[0]) * 1000)
    if event.button == 1 and held >= 500:
        say("long-press=%d" % held)
    return False


hold.connect("button-press-event", hold_down)
hold.connect("button-release-event", hold_up)
box.pack_start(hold, False, False, 0)

common.listen(status)
common.run(win)
