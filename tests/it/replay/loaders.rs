//! Loaders (test code only) that turn the real recordings in
//! `../shared/data/recorded-trees/macos/` into `axgate-recording/1` files, keeping every
//! attribute the recorder wrote under its AX name and inventing none: what a recorder left
//! out stays absent, and the tests say so. The data stays where it is; it is read by path.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

/// Where the recordings live: the shared data of this machine layout, by absolute path…
pub(super) const RECORDED_TREES: &str = "/work/shared/data/recorded-trees";
/// …or beside the repository (CI's checkout at `/work/main`).
const BESIDE_THE_REPOSITORY: &str = "../shared/data/recorded-trees";

/// The path of one recording; fails loudly when the data is not where the tests expect it.
pub(super) fn recorded(file: &str) -> PathBuf {
    let beside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(BESIDE_THE_REPOSITORY);
    let root = [PathBuf::from(RECORDED_TREES), beside.clone()]
        .into_iter()
        .find(|p| p.is_dir())
        .unwrap_or_else(|| {
            panic!(
                "the recorded trees are missing: expected them at {RECORDED_TREES} or {} \
                 (the shared data of this machine; see its README.md)",
                beside.display()
            )
        });
    let path = root.join(file);
    assert!(path.is_file(), "{} is missing", path.display());
    path
}

fn read(file: &str) -> String {
    std::fs::read_to_string(recorded(file)).expect("readable recording")
}

/// A recording file around apps.
pub(super) fn recording(os: Option<&str>, apps: Vec<Value>) -> Value {
    json!({"format": "axgate-recording/1", "os": os, "apps": apps})
}

fn app(name: &str, bundle_id: Option<&str>, pid: u32, root: Value) -> Value {
    json!({"name": name, "bundle_id": bundle_id, "pid": pid, "root": root})
}

// ---- Screen2AX (macapptree-style JSON: name, role, description, role_description, value,
// position "x;y", size "w;h", children) ----

/// The Screen2AX "Chats" window as one app (pid 500). The recorder wrote AXTitle, AXRole,
/// AXDescription, AXRoleDescription, AXValue, AXPosition, AXSize and children; it did not
/// write AXSubrole, AXIdentifier, AXPlaceholderValue, AXHelp, AXTitleUIElement, AXEnabled,
/// AXFocused or actions, so those are absent here too.
pub(super) fn screen2ax() -> Value {
    let window: Value =
        serde_json::from_str(&read("macos/screen2ax-ai-chat-app-chats-window.json"))
            .expect("Screen2AX JSON");
    let root = json!({
        // The recorder dumped the window only: the app element around it is ours, with
        // nothing but its role.
        "attributes": {"AXRole": "AXApplication"},
        "children": [screen2ax_node(&window)],
    });
    recording(None, vec![app("AI Chat", None, 500, root)])
}

fn pair(text: &Value, a: &str, b: &str) -> Option<Value> {
    let (x, y) = text.as_str()?.split_once(';')?;
    Some(json!({a: x.parse::<f64>().ok()?, b: y.parse::<f64>().ok()?}))
}

fn screen2ax_node(node: &Value) -> Value {
    let mut attributes = Map::new();
    for (key, ax) in [
        ("role", "AXRole"),
        ("name", "AXTitle"),
        ("description", "AXDescription"),
        ("role_description", "AXRoleDescription"),
        ("value", "AXValue"),
    ] {
        // Null means absent or empty to this recorder: recorded as empty.
        attributes.insert(ax.into(), node[key].clone());
    }
    if let Some(p) = pair(&node["position"], "x", "y") {
        attributes.insert("AXPosition".into(), p);
    }
    if let Some(s) = pair(&node["size"], "w", "h") {
        attributes.insert("AXSize".into(), s);
    }
    let children: Vec<Value> = node["children"]
        .as_array()
        .map(|c| c.iter().map(screen2ax_node).collect())
        .unwrap_or_default();
    json!({"attributes": attributes, "children": children})
}

// ---- AeroSpace window dumps (one window per dump, its buttons one level deep) ----

/// The buttons a window dump expands, in the order the title bar shows them: the ones a
/// recording keeps.
pub(super) use axgate::platform::replay::writer::BUTTON_ATTRS;

/// The first pid of the AeroSpace apps; dump `i` (in file order) is pid `AEROSPACE_PID + i`.
pub(super) const AEROSPACE_PID: u32 = 1000;

/// Every AeroSpace dump as one app: the app element (from `Aero.AXApp`) with one window,
/// whose children are the buttons the dump expanded and, where the window links a title
/// element, that element. The dumps hold no other children, and never the linked element's
/// text (`title=nil`, its AXValue unrecorded): that stays absent.
pub(super) fn aerospace() -> Vec<(String, Value)> {
    let file: Value =
        serde_json::from_str(&read("macos/aerospace-axdumps-77-app-windows.json")).expect("JSON");
    let dumps = file["dumps"].as_object().expect("dumps");
    dumps
        .iter()
        .enumerate()
        .map(|(i, (stem, dump))| {
            let pid = AEROSPACE_PID + i as u32;
            let ax_app = &dump["Aero.AXApp"];
            let name = ax_app["AXTitle"].as_str().unwrap_or(stem).to_owned();
            let bundle = dump["Aero.App.appBundleId"].as_str();
            let os = dump["Aero.macOS.version"].as_str();
            // Ids are unique in the file: prefixed with the pid.
            let id = |name: &str| format!("p{pid}-{name}");
            let mut window = aerospace_element(dump);
            window["id"] = json!(id("window"));
            let mut children = Vec::new();
            let mut seen_buttons = Vec::new();
            for attr in BUTTON_ATTRS {
                let button = &dump[*attr];
                if !button.is_object() {
                    continue;
                }
                // AXZoomButton and AXFullScreenButton can return the same element: one child.
                if seen_buttons.contains(&button) {
                    let same = seen_buttons.iter().position(|b| *b == button).unwrap_or(0);
                    window["attributes"][*attr] = json!({"ref": id(&format!("b{same}"))});
                    continue;
                }
                let button_id = id(&format!("b{}", seen_buttons.len()));
                seen_buttons.push(button);
                let mut node = aerospace_element(button);
                node["id"] = json!(button_id);
                window["attributes"][*attr] = json!({"ref": button_id});
                children.push(node);
            }
            if let Some(link) = dump["AXTitleUIElement"].as_str() {
                // The reference names the linked element's role and title (nil in every
                // dump); its value was not recorded.
                let role = quoted(link, "role=").unwrap_or("AXStaticText");
                let mut attributes = json!({"AXRole": role});
                if let Some(title) = quoted(link, "title=") {
                    attributes["AXTitle"] = json!(title);
                }
                children.push(json!({"id": id("title"), "attributes": attributes}));
                window["attributes"]["AXTitleUIElement"] = json!({"ref": id("title")});
            }
            window["children"] = Value::Array(children);
            let mut app_attrs = Map::new();
            app_attrs.insert("AXRole".into(), json!("AXApplication"));
            app_attrs.insert("AXTitle".into(), json!(name));
            if let Some(front) = ax_app["AXFrontmost"].as_i64() {
                app_attrs.insert("AXFrontmost".into(), json!(front == 1));
            }
            app_attrs.insert("AXWindows".into(), json!([{"ref": id("window")}]));
            let root = json!({"attributes": app_attrs, "children": [window]});
            let one = recording(
                os.map(|v| format!("macOS {v}")).as_deref(),
                vec![app(&name, bundle, pid, root)],
            );
            (stem.clone(), one)
        })
        .collect()
}

/// All AeroSpace apps in one recording.
pub(super) fn aerospace_all() -> Value {
    let apps = aerospace()
        .into_iter()
        .map(|(_, r)| r["apps"][0].clone())
        .collect();
    recording(None, apps)
}

/// `x="…"` inside an `AXUIElement(…)` description; `None` for `nil`.
fn quoted<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let rest = &text[text.find(key)? + key.len()..];
    let rest = rest.strip_prefix('"')?;
    Some(&rest[..rest.find('"')?])
}

/// One dumped element's attributes: strings, 0/1 flags (as numbers, as AX returns them),
/// geometry from its CFCopyDescription text. References and AeroSpace's own keys are left
/// out (the window's buttons and title element are linked by the caller).
fn aerospace_element(dump: &Value) -> Value {
    let mut attributes = Map::new();
    let failed: Vec<&str> = dump["Aero.AxFailed"]
        .as_str()
        .unwrap_or("")
        .split(", ")
        .filter_map(|f| f.strip_prefix("get."))
        .collect();
    for (key, value) in dump.as_object().expect("object") {
        if !key.starts_with("AX") || BUTTON_ATTRS.contains(&key.as_str()) {
            continue;
        }
        let converted = match value {
            Value::String(s) if s.contains("kAXValueCGPointType") => {
                json!({"x": field(s, "x:"), "y": field(s, "y:")})
            }
            Value::String(s) if s.contains("kAXValueCGSizeType") => {
                json!({"w": field(s, "w:"), "h": field(s, "h:")})
            }
            Value::String(s) if s.contains("kAXValueCGRectType") => {
                json!({"x": field(s, "x:"), "y": field(s, "y:"), "w": field(s, "w:"), "h": field(s, "h:")})
            }
            Value::String(s) if s.starts_with("AXUIElement(") || s.starts_with("<AX") => continue,
            Value::Array(_) | Value::Object(_) => continue,
            other => other.clone(),
        };
        attributes.insert(key.clone(), converted);
    }
    for name in failed {
        // The read failed (`Aero.AxFailed`): no value, as the Mac returned none.
        attributes.insert(name.to_owned(), Value::Null);
    }
    json!({"attributes": attributes})
}

fn field(text: &str, key: &str) -> f64 {
    let rest = &text[text.find(key).expect("geometry field") + key.len()..];
    let end = rest.find(' ').unwrap_or(rest.len());
    rest[..end].parse().expect("a number")
}

// ---- Chromium's DumpAccessibilityTree expectations (macOS) ----

/// The first pid of the Chromium sections; section `i` is pid `CHROMIUM_PID + i`.
pub(super) const CHROMIUM_PID: u32 = 3000;

/// Each tree section of the Chromium mac expectations as an app (named after its test file)
/// whose window holds the `AXWebArea`. Attributes a test's filter did not print are absent:
/// a missing attribute there does not mean an empty one.
pub(super) fn chromium() -> Value {
    let text = read("macos/chromium-web-content-mac-expectations.txt");
    let mut apps = Vec::new();
    for (i, section) in text.split("\n=== ").skip(1).enumerate() {
        let mut lines = section.lines();
        let header = lines.next().expect("header");
        let path = header.split(" @ ").next().expect("path");
        let name = path
            .rsplit('/')
            .next()
            .unwrap_or(path)
            .trim_end_matches("-expected-mac.txt")
            .to_owned();
        let tree: Vec<&str> = lines
            .filter(|l| l.trim_start_matches('+').starts_with("AX"))
            .collect();
        if tree.is_empty() {
            // The mac/attributes sections are attribute queries, not trees.
            continue;
        }
        let web = chromium_tree(&tree);
        let window =
            json!({"attributes": {"AXRole": "AXWindow", "AXTitle": name}, "children": [web]});
        let root = json!({"attributes": {"AXRole": "AXApplication", "AXTitle": name}, "children": [window]});
        apps.push(app(&name, None, CHROMIUM_PID + i as u32, root));
    }
    recording(None, apps)
}

fn chromium_tree(lines: &[&str]) -> Value {
    // (depth, node) in order; built into a tree with a stack.
    let mut stack: Vec<(usize, Value)> = Vec::new();
    let mut root = None;
    for line in lines {
        let depth = (line.len() - line.trim_start_matches('+').len()) / 2;
        let node = chromium_line(line.trim_start_matches('+'));
        while let Some((d, _)) = stack.last() {
            if *d < depth {
                break;
            }
            let (_, done) = stack.pop().expect("node");
            attach(&mut stack, &mut root, done);
        }
        stack.push((depth, node));
    }
    while let Some((_, done)) = stack.pop() {
        attach(&mut stack, &mut root, done);
    }
    root.expect("a tree")
}

fn attach(stack: &mut [(usize, Value)], root: &mut Option<Value>, node: Value) {
    match stack.last_mut() {
        Some((_, parent)) => parent["children"]
            .as_array_mut()
            .expect("children")
            .push(node),
        None => *root = Some(node),
    }
}

/// `AXRole Attr='quoted value' Attr=token …` → a node.
fn chromium_line(line: &str) -> Value {
    let (role, mut rest) = line.split_once(' ').unwrap_or((line, ""));
    let mut attributes = Map::new();
    attributes.insert("AXRole".into(), json!(role));
    while let Some((key, after)) = rest.split_once('=') {
        let key = key.trim();
        let (value, next) = if let Some(q) = after.strip_prefix('\'') {
            let end = q.find('\'').unwrap_or(q.len());
            (json!(q[..end].to_owned()), q.get(end + 1..).unwrap_or(""))
        } else {
            let end = after.find(' ').unwrap_or(after.len());
            let token = &after[..end];
            let value = token
                .parse::<f64>()
                .map(|n| json!(n))
                .unwrap_or_else(|_| json!(token));
            (value, &after[end..])
        };
        // Relations (`:3`, `[:1, :2]`) point at lines by number: not kept.
        let relation = value
            .as_str()
            .is_some_and(|s| s.starts_with(':') || s.starts_with('['));
        if key.starts_with("AX") && !relation {
            attributes.insert(key.to_owned(), value);
        }
        rest = next;
    }
    json!({"attributes": attributes, "children": []})
}
