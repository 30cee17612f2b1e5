#!/usr/bin/python3
"""Names from elsewhere: an Email entry named only by the label whose mnemonic widget it is,
a Phone entry named only by an ATK labelled-by relation to a label, an icon button named only
by its accessible description ("Search"), and a Name entry with an accessible name of its own.
Prints every change: email=, phone=, clicked=."""

import common
from common import Gtk, name, say

import gi  # noqa: E402

gi.require_version("Atk", "1.0")
from gi.repository import Atk  # noqa: E402

win = common.window("Labels", 420, 200)
grid = Gtk.Grid(row_spacing=6, column_spacing=6, margin=12)
win.add(grid)

email_label = Gtk.Label.new_with_mnemonic("_Email")
email = Gtk.Entry()
email_label.set_mnemonic_widget(email)
email.connect("changed", lambda e: say("email=" + e.get_text()))
grid.attach(email_label, 0, 0, 1, 1)
grid.attach(email, 1, 0, 1, 1)

phone_label = Gtk.Label(label="Phone")
phone = Gtk.Entry()
phone.get_accessible().add_relationship(Atk.RelationType.LABELLED_BY, phone_label.get_accessible())
phone.connect("changed", lambda e: say("phone=" + e.get_text()))
grid.attach(phone_label, 0, 1, 1, 1)
grid.attach(phone, 1, 1, 1, 1)

grid.attach(Gtk.Label(label="Name"), 0, 2, 1, 1)
named = name(Gtk.Entry(), "Name")
grid.attach(named, 1, 2, 1, 1)

search = Gtk.Button.new_from_icon_name("edit-find", Gtk.IconSize.BUTTON)
search.get_accessible().set_name("")
search.get_accessible().set_description("Search")
search.connect("clicked", lambda _b: say("clicked=Search"))
grid.attach(search, 1, 3, 1, 1)

common.listen()
common.run(win)
