"""Shared helpers of the GTK3 test apps, imported first (it names the program and starts GTK): one line per observed change on stdout, and a tiny
command channel on stdin (one command per line) so tests can make an app change by itself
or stop answering:

    freeze SECONDS   block the main loop (the app stops answering AT-SPI calls)
    label TEXT       set the app's status label (a change the app makes by itself)
    quit             leave the main loop
"""

import os
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib  # noqa: E402

# AT-SPI names an app by its program name, which GTK takes when it starts: name it first
# (TEST_APP_NAME, else axgate-<script>, e.g. axgate-form for form.py).
if not GLib.get_prgname():
    script = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    GLib.set_prgname(os.environ.get("TEST_APP_NAME") or "axgate-" + script)
from gi.repository import Gtk  # noqa: E402


def say(line):
    """Prints one change line and flushes, so tests see it at once."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def name(widget, text):
    """Sets a widget's accessible name."""
    widget.get_accessible().set_name(text)
    return widget


def buttons(*specs, disabled=()):
    """A row of buttons, one per (label, action): a click prints clicked=LABEL, then runs the
    action; a button whose label is in `disabled` cannot be clicked."""
    row = Gtk.Box(spacing=6)
    for label, action in specs:
        button = Gtk.Button(label=label)
        button.connect("clicked", _clicked, label, action)
        button.set_sensitive(label not in disabled)
        row.add(button)
    return row


def _clicked(_button, label, action):
    say("clicked=" + label)
    action()


def listen(status_label=None, extra=None):
    """Reads commands from stdin inside the GTK main loop."""

    def on_input(channel, _condition):
        line = channel.readline()
        if not line:
            return False
        words = line.strip().split(" ", 1)
        cmd, arg = words[0], (words[1] if len(words) > 1 else "")
        if cmd == "freeze":
            say("freeze-start")
            time.sleep(float(arg or "5"))
            say("freeze-end")
        elif cmd == "label" and status_label is not None:
            status_label.set_text(arg)
        elif cmd == "quit":
            Gtk.main_quit()
        elif extra is not None:
            extra(cmd, arg)
        return True

    channel = GLib.IOChannel.unix_new(sys.stdin.fileno())
    GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP, on_input)


def run(window):
    """Shows the window, reports readiness and runs the main loop."""
    window.connect("delete-event", lambda *_: say("close-requested") or False)
    window.connect("destroy", lambda *_: (say("closed"), Gtk.main_quit()))
    window.show_all()
    GLib.idle_add(lambda: say("ready") and False)
    Gtk.main()


def window(title, width, height):
    """The app's window, of this default size."""
    win = Gtk.Window(title=title)
    win.set_default_size(width, height)
    return win
