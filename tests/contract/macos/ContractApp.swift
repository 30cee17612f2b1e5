// The backend contract suite's app on macOS (tests/contract/), the same shape as the demo
// backend's Contract app (src/platform/demo/apps/contract.json) and the GTK3 one
// (tests/desktop/apps/contract.py): a window "Contract" with a Name field, a Password field,
// a Subscribe check box, a Volume slider (0-100), Greet (status "Hello, NAME"), Clear (empties
// Name, status "Cleared"), a disabled Disabled button, a status label ("Ready") and an Items
// list (Alpha, Beta, Gamma; selecting one sets the status to "Selected: ROW"); an Edit menu
// with Clear Name. Every element carries the accessibility identifier the demo app uses.
// Prints every change on stdout (name=, password=, subscribe=, volume=, clicked=, status=,
// selected=, menu=), as the GTK app does.
//
// Plain AppKit, one file, no Xcode project:
//   swiftc -O -o ContractApp tests/contract/macos/ContractApp.swift
//   ./ContractApp   (its process name, and so its app name, is "ContractApp")

import AppKit

func say(_ line: String) {
    FileHandle.standardOutput.write((line + "\n").data(using: .utf8)!)
}

final class Contract: NSObject, NSApplicationDelegate, NSTextFieldDelegate,
    NSTableViewDataSource, NSTableViewDelegate
{
    let rows = ["Alpha", "Beta", "Gamma"]
    var window: NSWindow!
    let name = NSTextField(string: "")
    let password = NSSecureTextField(string: "")
    let subscribe = NSButton(checkboxWithTitle: "Subscribe", target: nil, action: nil)
    let volume = NSSlider(value: 50, minValue: 0, maxValue: 100, target: nil, action: nil)
    let status = NSTextField(labelWithString: "Ready")
    let items = NSTableView()

    func applicationDidFinishLaunching(_ note: Notification) {
        window = NSWindow(
            contentRect: NSRect(x: 120, y: 200, width: 460, height: 440),
            styleMask: [.titled, .closable, .miniaturizable, .resizable],
            backing: .buffered, defer: false)
        window.title = "Contract"
        window.setAccessibilityIdentifier("contract_window")

        name.setAccessibilityLabel("Name")
        name.setAccessibilityIdentifier("name")
        name.delegate = self
        password.setAccessibilityLabel("Password")
        password.setAccessibilityIdentifier("password")
        password.delegate = self
        subscribe.setAccessibilityIdentifier("subscribe")
        subscribe.target = self
        subscribe.action = #selector(toggled)
        volume.setAccessibilityLabel("Volume")
        volume.setAccessibilityIdentifier("volume")
        volume.target = self
        volume.action = #selector(slid)
        status.setAccessibilityIdentifier("status")
        status.setAccessibilityTitle("Ready")

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

        let buttons = NSStackView(views: [greet, clear, disabled])
        let stack = NSStackView(views: [name, password, subscribe, volume, buttons, status, items])
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
        let clearName = NSMenuItem(title: "Clear Name", action: #selector(clearNameChosen), keyEquivalent: "")
        clearName.target = self
        edit.addItem(clearName)
        editItem.submenu = edit
        menuBar.addItem(editItem)
        NSApp.mainMenu = menuBar

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

    /// The label's text is also its accessibility title, as a GTK label's name is its text.
    func setStatus(_ text: String) {
        status.stringValue = text
        status.setAccessibilityTitle(text)
        say("status=" + text)
    }

    func controlTextDidChange(_ note: Notification) {
        guard let field = note.object as? NSTextField else { return }
        say((field === password ? "password=" : "name=") + field.stringValue)
    }

    @objc func toggled() { say("subscribe=" + (subscribe.state == .on ? "true" : "false")) }
    @objc func slid() { say("volume=\(Int(volume.doubleValue))") }

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
