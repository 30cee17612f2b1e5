#!/usr/bin/python3
"""A list with many rows: `rows.py [ROWS] [--box]` (default 50). Each row holds a label, a
button and a check button; every tenth row an entry too. The rows sit in a GtkListBox
(which manages its descendants, so AT-SPI caches leave them out), or with `--box` in a plain
vertical GtkBox. With 400 rows the app has about 2,000 accessible widgets (the benchmark's
generated app). Prints selected=ROW, pressed=ROW and checked=ROW:STATE."""

import sys

import common
from common import Gtk, name, say

args = [a for a in sys.argv[1:] if not a.startswith("--")]
rows = int(args[0]) if args else 50
plain = "--box" in sys.argv
win = common.window("Rows", 520, 700)
scroller = Gtk.ScrolledWindow()
if plain:
    listbox = name(Gtk.Box(orientation=Gtk.Orientation.VERTICAL), "Items")
else:
    listbox = name(Gtk.ListBox(), "Items")
    listbox.connect("row-selected", lambda _l, r: r is not None and say("selected=%d" % r.get_index()))
for i in range(rows):
    line = Gtk.Box(spacing=6)
    line.add(Gtk.Label(label="Item %d" % i))
    button = Gtk.Button(label="Open %d" % i)
    button.connect("clicked", lambda _b, i=i: say("pressed=%d" % i))
    line.add(button)
    check = Gtk.CheckButton(label="Done %d" % i)
    check.connect("toggled", lambda c, i=i: say("checked=%d:%s" % (i, c.get_active())))
    line.add(check)
    if i % 10 == 0:
        line.add(name(Gtk.Entry(), "Note %d" % i))
    listbox.add(line)
scroller.add(listbox)
status = Gtk.Label(label="%d rows" % rows)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
box.pack_start(scroller, True, True, 0)
box.pack_start(status, False, False, 0)
win.add(box)

common.listen(status)
common.run(win)
