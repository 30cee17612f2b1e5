#!/usr/bin/python3
"""The backend contract suite's app (tests/contract/), the same shape on every backend: a
window "Contract" with an Edit menu (Clear Name), a Name entry, a Password entry, a Subscribe
check button, a Volume slider (0-100), Greet (status "Hello, NAME"), Clear (empties Name,
status "Cleared") and a disabled Disabled button, a status label ("Ready") and an Items list
(Alpha, Beta, Gamma; selecting one sets the status to "Selected: ROW"). Prints every change:
name=, password=, subscribe=, volume=, clicked=, status=, selected=, menu=."""

import common
from common import Gtk, name, say

win = common.window("Contract", 460, 440)
outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
win.add(outer)

# A GTK label's accessible name is its text: the status's title is what it says.
status = Gtk.Label(label="Ready")
status.connect("notify::label", lambda l, _p: say("status=" + l.get_text()))


def clear_name(_item):
    say("menu=Edit>Clear Name")
    entry.set_text("")
    status.set_text("Cleared by menu")


bar = Gtk.MenuBar()
edit = Gtk.MenuItem(label="Edit")
menu = Gtk.Menu()
item = Gtk.MenuItem(label="Clear Name")
item.connect("activate", clear_name)
menu.append(item)
edit.set_submenu(menu)
bar.append(edit)
outer.pack_start(bar, False, False, 0)

grid = Gtk.Grid(row_spacing=6, column_spacing=6, margin=12)
outer.pack_start(grid, True, True, 0)

grid.attach(Gtk.Label(label="Name"), 0, 0, 1, 1)
entry = name(Gtk.Entry(), "Name")
entry.set_hexpand(True)
entry.connect("changed", lambda e: say("name=" + e.get_text()))
grid.attach(entry, 1, 0, 1, 1)

grid.attach(Gtk.Label(label="Password"), 0, 1, 1, 1)
password = name(Gtk.Entry(visibility=False), "Password")
password.connect("changed", lambda e: say("password=" + e.get_text()))
grid.attach(password, 1, 1, 1, 1)

check = Gtk.CheckButton(label="Subscribe")
check.connect("toggled", lambda c: say("subscribe=" + str(c.get_active()).lower()))
grid.attach(check, 1, 2, 1, 1)

grid.attach(Gtk.Label(label="Volume"), 0, 3, 1, 1)
scale = name(Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1), "Volume")
scale.set_value(50)
scale.connect("value-changed", lambda s: say("volume=%g" % s.get_value()))
grid.attach(scale, 1, 3, 1, 1)


def clear():
    entry.set_text("")
    status.set_text("Cleared")


buttons = common.buttons(
    ("Greet", lambda: status.set_text("Hello, " + entry.get_text())),
    ("Clear", clear),
    ("Disabled", lambda: status.set_text("Should not happen")),
    disabled={"Disabled"},
)
grid.attach(buttons, 1, 4, 1, 1)
grid.attach(status, 1, 5, 1, 1)

items = name(Gtk.ListBox(), "Items")
for label in ["Alpha", "Beta", "Gamma"]:
    items.add(Gtk.Label(label=label))


def selected(_list, row):
    if row is None:
        return
    text = row.get_child().get_text()
    say("selected=" + text)
    status.set_text("Selected: " + text)


items.connect("row-selected", selected)
items.unselect_all()
grid.attach(items, 1, 6, 1, 1)

common.listen(status)
common.run(win)
