//! The page-source document: one [`El`] per element of an app's snapshot, with the
//! attributes Mac2 gives its elements (`elementType identifier value label title
//! placeholderValue enabled selected x y width height`, plus `focused` and `hittable` for
//! predicates), and its XML as Mac2 writes it. Every locator evaluates over this document,
//! so `xpath` sees exactly what the page source shows.

use axgate_engine::{AxValue, RawNode, Role};

use crate::roles::{element_type, type_name};

/// One element, in Mac2's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct El {
    pub ty: u8,
    pub identifier: String,
    pub value: Option<String>,
    pub label: String,
    pub title: String,
    pub placeholder: String,
    pub enabled: bool,
    pub selected: bool,
    pub focused: bool,
    /// Shown on screen (axgate's `visible`): Mac2's `hittable` and `displayed`.
    pub hittable: bool,
    /// x, y, width, height in points.
    pub frame: [f64; 4],
    pub parent: Option<usize>,
    pub children: Vec<usize>,
}

/// The attribute names Mac2's page source writes, in its order.
pub const SOURCE_ATTRIBUTES: [&str; 12] = [
    "elementType",
    "identifier",
    "value",
    "label",
    "title",
    "placeholderValue",
    "enabled",
    "selected",
    "x",
    "y",
    "width",
    "height",
];

impl El {
    /// One element as Mac2 describes it, without its place in a document (`parent` and
    /// `children` empty). A secure field's value is never in it.
    pub fn from_node(n: &RawNode) -> El {
        let title = n.title.clone().unwrap_or_default();
        // XCTest's label is the accessibility label (macOS AXDescription); an element
        // named only from elsewhere (a linked label, AT-SPI's name) keeps that name.
        let label = n
            .description
            .clone()
            .filter(|d| !d.is_empty())
            .or_else(|| n.name.clone().filter(|name| *name != title))
            .unwrap_or_default();
        El {
            ty: element_type(n.role, &n.native_role, n.subrole.as_deref()),
            identifier: n.identifier.clone().unwrap_or_default(),
            value: n.visible_value().map(value_text),
            label,
            title,
            placeholder: n.placeholder.clone().unwrap_or_default(),
            enabled: n.states.enabled,
            selected: n.states.selected,
            focused: n.states.focused,
            hittable: n.states.visible,
            frame: n.frame.map_or([0.0; 4], |r| [r.x, r.y, r.w, r.h]),
            parent: None,
            children: Vec::new(),
        }
    }

    /// `XCUIElementTypeButton`; the root is always `XCUIElementTypeApplication`.
    pub fn type_name(&self) -> String {
        type_name(self.ty).unwrap_or_else(|| "XCUIElementTypeOther".into())
    }

    /// An attribute by its Mac2 name, as the string Mac2 answers; `None` for an unknown
    /// name or an attribute the element does not have.
    pub fn attr(&self, name: &str) -> Option<String> {
        let non_empty = |s: &String| (!s.is_empty()).then(|| s.clone());
        let number = |n: f64| format!("{}", n.round() as i64);
        match name {
            "elementType" => Some(self.ty.to_string()),
            "type" => Some(self.type_name()),
            "identifier" | "name" => non_empty(&self.identifier),
            "value" => self.value.clone(),
            "label" => non_empty(&self.label),
            "title" => non_empty(&self.title),
            "placeholderValue" => non_empty(&self.placeholder),
            "enabled" => Some(self.enabled.to_string()),
            "selected" => Some(self.selected.to_string()),
            "focused" | "hasFocus" => Some(self.focused.to_string()),
            "hittable" | "displayed" | "visible" => Some(self.hittable.to_string()),
            "x" => Some(number(self.frame[0])),
            "y" => Some(number(self.frame[1])),
            "width" => Some(number(self.frame[2])),
            "height" => Some(number(self.frame[3])),
            "frame" => Some(format!(
                "{{{{{}, {}}}, {{{}, {}}}}}",
                number(self.frame[0]),
                number(self.frame[1]),
                number(self.frame[2]),
                number(self.frame[3])
            )),
            _ => None,
        }
    }

    /// Mac2's element text: the value, else the label, else the placeholder, else the title.
    pub fn text(&self) -> String {
        self.value
            .clone()
            .filter(|v| !v.is_empty())
            .or_else(|| (!self.label.is_empty()).then(|| self.label.clone()))
            .or_else(|| (!self.placeholder.is_empty()).then(|| self.placeholder.clone()))
            .unwrap_or_else(|| self.title.clone())
    }
}

/// The document: elements in document (pre-)order, the root at 0.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Doc {
    pub els: Vec<El>,
}

fn value_text(v: &AxValue) -> String {
    match v {
        // Mac2 answers a check box's value as 0/1.
        AxValue::Bool(b) => u8::from(*b).to_string(),
        other => other.to_string(),
    }
}

impl Doc {
    /// The document of a pre-ordered snapshot (each node's `parent` an earlier index). A
    /// secure field's value is never in it.
    pub fn from_nodes(nodes: &[RawNode]) -> Doc {
        let mut els: Vec<El> = Vec::with_capacity(nodes.len());
        for (i, n) in nodes.iter().enumerate() {
            let mut el = El::from_node(n);
            if i == 0 {
                el.ty = element_type(Role::Application, "AXApplication", None);
            }
            let parent = n.parent.filter(|p| *p < i);
            el.parent = parent;
            els.push(el);
            if let Some(p) = parent {
                els[p].children.push(i);
            }
        }
        Doc { els }
    }

    /// Every element under `from` (not `from` itself), in document order.
    pub fn descendants(&self, from: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.els[from].children.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.els[i].children.iter().rev());
        }
        out
    }

    /// The XML page source, as Mac2 writes it.
    pub fn to_xml(&self) -> String {
        let mut out = String::with_capacity(self.els.len() * 160 + 64);
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        if !self.els.is_empty() {
            self.write(0, 0, &mut out);
        }
        out
    }

    fn write(&self, i: usize, depth: usize, out: &mut String) {
        let el = &self.els[i];
        let name = el.type_name();
        for _ in 0..depth {
            out.push_str("  ");
        }
        out.push('<');
        out.push_str(&name);
        for attr in SOURCE_ATTRIBUTES {
            if let Some(v) = el.attr(attr) {
                out.push(' ');
                out.push_str(attr);
                out.push_str("=\"");
                escape(&v, out);
                out.push('"');
            }
        }
        if el.children.is_empty() {
            out.push_str("/>\n");
            return;
        }
        out.push_str(">\n");
        for &c in &el.children {
            self.write(c, depth + 1, out);
        }
        for _ in 0..depth {
            out.push_str("  ");
        }
        out.push_str("</");
        out.push_str(&name);
        out.push_str(">\n");
    }
}

/// XML attribute escaping; characters XML 1.0 cannot carry are dropped.
fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use axgate_engine::{NodeId, Rect};

    fn node(i: u64, parent: Option<usize>, role: Role) -> RawNode {
        let mut n = RawNode::new(NodeId(i), role, "");
        n.parent = parent;
        n
    }

    /// How a test names the elements a locator found: by identifier, else by type.
    pub(crate) fn names(doc: &Doc, found: Vec<usize>) -> Vec<String> {
        found
            .into_iter()
            .map(|i| {
                doc.els[i]
                    .attr("identifier")
                    .unwrap_or_else(|| doc.els[i].type_name())
            })
            .collect()
    }

    /// A small app: a window with two text fields, a check box, a secure field, a group with
    /// a button and a static text, and a menu bar.
    pub(crate) fn sample() -> Doc {
        let mut nodes = vec![node(0, None, Role::Application)];
        nodes[0].title = Some("Form".into());
        let mut w = node(1, Some(0), Role::Window);
        w.title = Some("Demo Form".into());
        w.identifier = Some("form_window".into());
        w.frame = Some(Rect {
            x: 40.0,
            y: 60.0,
            w: 480.0,
            h: 440.0,
        });
        nodes.push(w);
        let mut name = node(2, Some(1), Role::TextField);
        name.title = Some("Name".into());
        name.identifier = Some("name".into());
        name.value = Some(AxValue::Text("Ada".into()));
        name.placeholder = Some("Your name".into());
        name.states.focused = true;
        nodes.push(name);
        let mut email = node(3, Some(1), Role::TextField);
        email.title = Some("Email".into());
        email.identifier = Some("email".into());
        email.value = Some(AxValue::Text(String::new()));
        nodes.push(email);
        let mut check = node(4, Some(1), Role::CheckBox);
        check.title = Some("Subscribe".into());
        check.identifier = Some("subscribe".into());
        check.value = Some(AxValue::Bool(true));
        check.states.selected = true;
        nodes.push(check);
        let mut secret = node(5, Some(1), Role::SecureTextField);
        secret.identifier = Some("password".into());
        secret.value = Some(AxValue::Text("hunter2".into()));
        secret.states.secure = true;
        nodes.push(secret);
        let mut group = node(6, Some(1), Role::Group);
        group.identifier = Some("buttons".into());
        nodes.push(group);
        let mut ok = node(7, Some(6), Role::Button);
        ok.title = Some("Submit".into());
        ok.identifier = Some("submit".into());
        ok.description = Some("Send the form".into());
        nodes.push(ok);
        let mut off = node(8, Some(6), Role::Button);
        off.title = Some("Reset <all>".into());
        off.identifier = Some("reset".into());
        off.states.enabled = false;
        nodes.push(off);
        let mut status = node(9, Some(1), Role::StaticText);
        status.value = Some(AxValue::Text("Ready".into()));
        status.identifier = Some("status".into());
        nodes.push(status);
        nodes.push(node(10, Some(0), Role::MenuBar));
        let mut file = node(11, Some(10), Role::MenuBarItem);
        file.title = Some("File".into());
        nodes.push(file);
        Doc::from_nodes(&nodes)
    }

    #[test]
    fn the_source_is_mac2s_xml() {
        let xml = sample().to_xml();
        assert!(xml.starts_with(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<XCUIElementTypeApplication elementType=\"2\" title=\"Form\" enabled=\"true\" selected=\"false\" x=\"0\" y=\"0\" width=\"0\" height=\"0\">\n"
        ), "{xml}");
        assert!(xml.contains(
            "    <XCUIElementTypeButton elementType=\"9\" identifier=\"submit\" label=\"Send the form\" title=\"Submit\" enabled=\"true\""
        ), "{xml}");
        assert!(xml.contains("title=\"Reset &lt;all&gt;\""), "{xml}");
        assert!(xml.contains(
            "<XCUIElementTypeCheckBox elementType=\"12\" identifier=\"subscribe\" value=\"1\""
        ));
        assert!(!xml.contains("hunter2"), "a secure value never shows");
        assert!(xml.trim_end().ends_with("</XCUIElementTypeApplication>"));
    }

    #[test]
    fn text_is_value_then_label_then_placeholder_then_title() {
        let d = sample();
        assert_eq!(d.els[2].text(), "Ada");
        assert_eq!(d.els[7].text(), "Send the form");
        assert_eq!(d.els[11].text(), "File");
        assert_eq!(d.els[1].attr("frame").unwrap(), "{{40, 60}, {480, 440}}");
        assert_eq!(d.descendants(6), vec![7, 8]);
    }
}
