// The backend contract suite's app on macOS (tests/contract/), the same shape as the demo
// backend's Contract app (src/platform/demo/apps/contract.json) and the GTK3 one
// (tests/desktop/apps/contract.py): a window "Contract" with a Name field, a Password field,
// a Subscribe check box, a Volume slider (0-100), Greet (status "Hello, NAME"), Clear (empties
// Name, status "Cleared"), a disabled Disabled button, a status label ("Ready") and an Items
// list (Alpha, Beta, Gamma; selecting one sets the status to "Selected: ROW"); the standard
// Edit menu (Undo, Redo, Cut, Copy, Paste, Select All, with their key equivalents, so cmd+a
// selects a field's text) and Clear Name. Every element carries the accessibility identifier
// the demo app uses.
//
// Written as real apps are, so the contracts find its controls the way axgate names real
// controls (mac_logic/naming.rs): Volume and Items are labelled by setAccessibilityLabel
// (AXDescription), the Name field only by the "Name" label beside it (AXTitleUIElement), the
// Password field only by its placeholder (AXPlaceholderValue), the buttons and the check box by
// their titles, the status label by its text (a static text's value). Its predicted tree is
// tests/recordings/contract-app.json (the contract suite replays it on Linux): keep the two
// in step.
//
// Prints every change on stdout (name=, password=, subscribe=, volume=, clicked=, status=,
// selected=, menu=), as the GTK app does. Field values are read from the controls (a 50 ms
// poll of what they hold), not taken from delegate callbacks: a value written through
// accessibility (AXValue) sends no controlTextDidChange and no action.
//
// Plain AppKit, one file, no Xcode project:
//   swiftc -O -o ContractApp tests/contract/macos/ContractApp.swift
//   ./ContractApp   (its process name, and so its app name, is "ContractApp")

import AppKit

func say(_ line: String) {
    FileHandle.standardOutput.write((line + "\n").data(using: .utf8)!)
}

final class Contract: NSObject, NSApplicationDelegate, NSTableViewDataSource,
    NSTableViewDelegate
{
    let rows = ["Alpha", "Beta", "Gamma"]
    var window: NSWindow!
    let nameLabel = NSTextField(labelWithString: "Name")
    let name = NSTextField(string: "")
    let password = NSSecureTextField(string: "")
    let subscribe = NSButton(checkboxWithTitle: "Subscribe", target: nil, action: nil)
    let volume = NSSlider(value: 50, minValue: 0, maxValue: 100, target: nil, action: nil)
    let status = NSTextField(labelWithString: "Ready")
    let items = NSTableView()
    /// What was last said of each field (`report`), so each change is said once.
    var said: [String: String] = [:]

    func applicationDidFinishLaunching(_ note: Notification) {
        window = NSWindow(
            contentRect: NSRect(x: 120, y: 200, width: 460, height: 440),
            styleMask: [.titled, .closable, .miniaturizable, .resizable],
            backing: .buffered, defer: false)
        window.title = "Contract"
        window.setAccessibilityIdentifier("contract_window")

        // Named only by the label beside it, as a form built in Interface Builder links them.
        nameLabel.setAccessibilityIdentifier("name_label")
        name.setAccessibilityTitleUIElement(nameLabel)
        name.setAccessibilityIdentifier("name")
        // Named only by its placeholder.
        password.placeholderString = "Password"
        password.setAccessibilityIdentifier("password")
        subscribe.setAccessibilityIdentifier("subscribe")
        subscribe.target = self
        subscribe.action = #selector(toggled)
        volume.setAccessibilityLabel("Volume")
        volume.setAccessibilityIdentifier("volume")
        volume.target = self
        volume.action = #selector(slid)
        status.setAccessibilityIdentifier("status")

        let greet = button("Greet", #selector(greetPressed))
        let clear = button("Clear", #selector(clearPressed))
        let disabled = button("Disabled", #selector(disabledPressed))
        disabled.isEnabled = false

        let column = NSTableColumn(identifier: NSUserInterfaceItemIdentifier("item"))
        items.addTableColumn(column)
        items.headerView = nil
        items.dataSource = self
        items.delegate = self
        items.setAccessibilityLabel("Items")
        items.setAccessibilityIdentifier("items")
        // A one-column list, presented as SwiftUI presents its List: an AXTable whose role
        // description is "list", which axgate calls a list (AppKit's own default for a table
        // view is "table", which axgate calls a table; docs/MACOS.md).
        items.setAccessibilityRoleDescription("list")

        let buttons = NSStackView(views: [greet, clear, disabled])
        let stack = NSStackView(views: [
            nameLabel, name, password, subscribe, volume, buttons, status, items,
        ])
        stack.orientation = .vertical
        stack.alignment = .leading
        stack.edgeInsets = NSEdgeInsets(top: 12, left: 12, bottom: 12, right: 12)
        window.contentView = stack

        let menuBar = NSMenu()
        let appItem = NSMenuItem()
        appItem.submenu = NSMenu(title: "ContractApp")
        appItem.submenu?.addItem(
            withTitle: "Quit ContractApp", action: #selector(NSApplication.terminate(_:)),
            keyEquivalent: "q")
        menuBar.addItem(appItem)
        let editItem = NSMenuItem()
        let edit = NSMenu(title: "Edit")
        // The standard items, sent down the responder chain to the field being edited.
        edit.addItem(withTitle: "Undo", action: Selector(("undo:")), keyEquivalent: "z")
        let redo = edit.addItem(withTitle: "Redo", action: Selector(("redo:")), keyEquivalent: "z")
        redo.keyEquivalentModifierMask = [.command, .shift]
        edit.addItem(NSMenuItem.separator())
        edit.addItem(withTitle: "Cut", action: #selector(NSText.cut(_:)), keyEquivalent: "x")
        edit.addItem(withTitle: "Copy", action: #selector(NSText.copy(_:)), keyEquivalent: "c")
        edit.addItem(withTitle: "Paste", action: #selector(NSText.paste(_:)), keyEquivalent: "v")
        edit.addItem(
            withTitle: "Select All", action: #selector(NSText.selectAll(_:)), keyEquivalent: "a")
        edit.addItem(NSMenuItem.separator())
        let clearName = NSMenuItem(title: "Clear Name", action: #selector(clearNameChosen), keyEquivalent: "")
        clearName.target = self
        edit.addItem(clearName)
        editItem.submenu = edit
        menuBar.addItem(editItem)
        NSApp.mainMenu = menuBar

        said = fields()
        // In the common modes, so it also runs while a menu is tracked.
        let poll = Timer(
            timeInterval: 0.05, target: self, selector: #selector(report), userInfo: nil,
            repeats: true)
        RunLoop.main.add(poll, forMode: .common)
        listen()
        window.makeKeyAndOrderFront(nil)
        NSApp.activate(ignoringOtherApps: true)
        say("ready")
    }

    /// Commands on stdin, one a line, as the GTK apps take them: `freeze SECONDS` blocks the
    /// main thread (the app stops answering accessibility calls), `quit` ends the app.
    func listen() {
        Thread.detachNewThread {
            while let line = readLine() {
                let words = line.split(separator: " ")
                if words.first == "freeze" {
                    let seconds = words.count > 1 ? Double(words[1]) ?? 5 : 5
                    DispatchQueue.main.async {
                        say("freeze-start")
                        Thread.sleep(forTimeInterval: seconds)
                        say("freeze-end")
                    }
                } else if words.first == "quit" {
                    DispatchQueue.main.async { NSApp.terminate(nil) }
                }
            }
        }
    }

    func button(_ title: String, _ action: Selector) -> NSButton {
        let b = NSButton(title: title, target: self, action: action)
        b.setAccessibilityIdentifier(title.lowercased())
        return b
    }

    /// The status label is named by its text, as AppKit presents a label.
    func setStatus(_ text: String) {
        status.stringValue = text
        say("status=" + text)
    }

    /// What the controls hold now, read from them: a field being edited holds its text in
    /// the field editor until the edit ends.
    func fields() -> [String: String] {
        [
            "name": text(of: name),
            "password": text(of: password),
            "subscribe": subscribe.state == .on ? "true" : "false",
            "volume": "\(Int(volume.doubleValue.rounded()))",
        ]
    }

    func text(of field: NSTextField) -> String {
        field.currentEditor()?.string ?? field.stringValue
    }

    /// Says every field whose value changed since it was last said, whoever changed it (a key,
    /// an accessibility write, a button of the app).
    @objc func report() {
        for (field, value) in fields().sorted(by: { $0.key < $1.key }) where said[field] != value {
            said[field] = value
            say(field + "=" + value)
        }
    }

    @objc func toggled() { report() }
    @objc func slid() { report() }

    @objc func greetPressed() {
        say("clicked=Greet")
        setStatus("Hello, " + name.stringValue)
    }

    @objc func clearPressed() {
        say("clicked=Clear")
        name.stringValue = ""
        setStatus("Cleared")
    }

    @objc func disabledPressed() {
        say("clicked=Disabled")
        setStatus("Should not happen")
    }

    @objc func clearNameChosen() {
        say("menu=Edit>Clear Name")
        name.stringValue = ""
        setStatus("Cleared by menu")
    }

    func numberOfRows(in tableView: NSTableView) -> Int { rows.count }

    func tableView(_ tableView: NSTableView, viewFor column: NSTableColumn?, row: Int) -> NSView? {
        let cell = NSTextField(labelWithString: rows[row])
        cell.setAccessibilityIdentifier("item_" + rows[row].lowercased())
        return cell
    }

    func tableViewSelectionDidChange(_ note: Notification) {
        guard items.selectedRow >= 0 else { return }
        say("selected=" + rows[items.selectedRow])
        setStatus("Selected: " + rows[items.selectedRow])
    }

    func applicationShouldTerminateAfterLastWindowClosed(_ app: NSApplication) -> Bool { true }
}

let app = NSApplication.shared
let delegate = Contract()
app.delegate = delegate
app.setActivationPolicy(.regular)
app.run()
