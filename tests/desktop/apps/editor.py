#!/usr/bin/python3
"""A menu-driven editor: a menu bar with File (New, Save, Quit) and Edit (Insert Greeting,
Select All) menus over a text view. Prints menu=MENU>ITEM for every menu item activated and
text=CONTENT for every change of the text."""

import common
from common import Gtk, name, say

win = common.window("Editor", 480, 360)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
win.add(box)

view = name(Gtk.TextView(), "Document")
buffer = view.get_buffer()
buffer.connect("changed", lambda b: say("text=" + b.get_text(b.get_start_iter(), b.get_end_iter(), True)))

status = Gtk.Label(label="saved")


def action(menu, item):
    say("menu=%s>%s" % (menu, item))
    if item == "New":
        buffer.set_text("")
    elif item == "Save":
        status.set_text("saved at %d chars" % buffer.get_char_count())
    elif item == "Insert Greeting":
        buffer.insert_at_cursor("Hello from the menu")
    elif item == "Select All":
        buffer.select_range(buffer.get_start_iter(), buffer.get_end_iter())
    elif item == "Quit":
        Gtk.main_quit()


bar = Gtk.MenuBar()
for title, items in [("File", ["New", "Save", "Quit"]), ("Edit", ["Insert Greeting", "Select All"])]:
    top = Gtk.MenuItem(label=title)
    menu = Gtk.Menu()
    for label in items:
        item = Gtk.MenuItem(label=label)
        item.connect("activate", lambda _i, m=title, l=label: action(m, l))
        menu.append(item)
    top.set_submenu(menu)
    bar.append(top)

box.pack_start(bar, False, False, 0)
scroller = Gtk.ScrolledWindow()
scroller.add(view)
box.pack_start(scroller, True, True, 0)
box.pack_start(status, False, False, 0)

common.listen(status)
common.run(win)
