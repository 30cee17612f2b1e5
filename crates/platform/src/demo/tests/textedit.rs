//! The TextEdit app: the shape a Mac2 WebDriver suite looks for (bundle id, text view in a
//! scroll view with a ruler of tab stops, format bar, menu identifiers) and the behaviour it
//! drives (typing, select all, clear, traits that change the typeface, context menu,
//! File ▸ Duplicate).

use axgate_engine::{RawNode, Role};

use super::*;

const APP: &str = "TextEdit";
const TEXT: &str = "First Text View";

/// A backend with TextEdit launched (by bundle id) and its window shown.
fn textedit() -> DemoBackend {
    let b = DemoBackend::new().with_launch_delay(Duration::ZERO);
    let info = b
        .launch_app(
            &axgate_engine::LaunchRequest::app("com.apple.TextEdit"),
            &mut ctx(),
        )
        .unwrap();
    assert_eq!(
        (info.name.as_str(), info.bundle_id.as_deref()),
        (APP, Some("com.apple.TextEdit"))
    );
    b
}

fn nodes(b: &DemoBackend) -> Vec<RawNode> {
    snapshot(b, APP, 64, 10_000).nodes
}

/// The values of every element with this identifier, in tree order (one per window).
fn values_of(b: &DemoBackend, identifier: &str) -> Vec<Option<AxValue>> {
    nodes(b)
        .into_iter()
        .filter(|n| n.identifier.as_deref() == Some(identifier))
        .map(|n| n.value)
        .collect()
}

fn typeface(b: &DemoBackend) -> Option<AxValue> {
    value(b, APP, "typeface")
}

#[test]
fn the_document_window_has_a_text_view_in_a_scroll_view_with_a_ruler_of_tab_stops() {
    let b = textedit();
    let all = nodes(&b);
    let parent_role = |n: &RawNode| n.parent.map(|p| all[p].role);
    let text = all
        .iter()
        .find(|n| n.identifier.as_deref() == Some(TEXT))
        .unwrap();
    assert_eq!(
        (text.role, text.native_role.as_str()),
        (Role::TextArea, "AXTextArea")
    );
    assert_eq!(parent_role(text), Some(Role::ScrollArea));
    assert_eq!(text.value, Some(AxValue::Text(String::new())));
    assert!(text.states.value_settable && text.actions.contains(&"show_menu".to_owned()));
    let scroll = &all[text.parent.unwrap()];
    assert_eq!(parent_role(scroll), Some(Role::Window));

    let ruler = all.iter().position(|n| n.role == Role::Ruler).unwrap();
    assert_eq!(all[ruler].native_role, "AXRuler");
    assert_eq!(
        all[ruler].parent, text.parent,
        "the ruler is the scroll view's"
    );
    let markers: Vec<&RawNode> = all.iter().filter(|n| n.parent == Some(ruler)).collect();
    assert!(
        markers
            .iter()
            .all(|m| m.role == Role::RulerMarker && m.native_role == "AXRulerMarker")
    );
    let tabs: Vec<f64> = markers
        .iter()
        .filter(|m| m.description.as_deref() == Some("left tab stop"))
        .map(|m| match m.value {
            Some(AxValue::Number(at)) => at,
            ref other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        tabs,
        (1..=12).map(|i| f64::from(i) * 28.0).collect::<Vec<_>>()
    );

    // The format bar: pop-ups with the labels TextEdit gives them, trait check boxes and
    // the alignment radio group.
    let by_description = |d: &str| {
        all.iter()
            .find(|n| n.description.as_deref() == Some(d))
            .unwrap_or_else(|| panic!("no element described {d:?}"))
    };
    let face = by_description("type face");
    assert_eq!(
        (face.role, face.native_role.as_str()),
        (Role::PopupButton, "AXPopUpButton")
    );
    assert_eq!(face.value, text_value("Regular"));
    assert_eq!(by_description("font family").value, text_value("Helvetica"));
    assert_eq!(by_description("font size").role, Role::ComboBox);
    for trait_box in ["bold", "italic", "underline"] {
        let node = by_description(trait_box);
        assert_eq!(
            (node.role, node.value.clone()),
            (Role::CheckBox, Some(AxValue::Bool(false)))
        );
    }
    assert_eq!(by_description("text alignment").role, Role::RadioGroup);
    assert!(by_description("align left").states.selected);
    assert_eq!(
        by_description("lists bullets and numbering").role,
        Role::PopupButton
    );

    // The menu bar and the identifiers menu items carry on macOS (their action selectors).
    let bar: Vec<String> = all
        .iter()
        .filter(|n| n.role == Role::MenuBarItem)
        .filter_map(|n| n.title.clone())
        .collect();
    assert_eq!(
        bar,
        [
            "TextEdit", "File", "Edit", "Format", "View", "Window", "Help"
        ]
    );
    for (identifier, title) in [
        ("duplicateDocument:", "Duplicate"),
        ("selectAll:", "Select All"),
        ("copy:", "Copy"),
        ("paste:", "Paste"),
    ] {
        let item = b.node_by_identifier(APP, identifier).unwrap();
        assert_eq!(
            (item.role, item.title.as_deref()),
            (Role::MenuItem, Some(title))
        );
    }
    assert_eq!(titles(&b, APP), ["Untitled"]);
}

fn text_value(s: &str) -> Option<AxValue> {
    Some(AxValue::Text(s.to_owned()))
}

#[test]
fn typing_select_all_and_clear_edit_the_text_view() {
    let b = textedit();
    // The text view has keyboard focus from the start, as in TextEdit.
    type_text(&b, APP, "hello world").unwrap();
    assert_eq!(value(&b, APP, TEXT), text("hello world"));
    // cmd+a, then typing replaces everything.
    key(&b, APP, "cmd+a");
    type_text(&b, APP, "bye").unwrap();
    assert_eq!(value(&b, APP, TEXT), text("bye"));
    // Edit ▸ Select All does the same.
    press(&b, APP, "selectAll:").unwrap();
    assert!(flag(&b, APP, TEXT, |s| s.selected));
    type_text(&b, APP, "x").unwrap();
    assert_eq!(value(&b, APP, TEXT), text("x"));
    // Clearing is a value write.
    set(&b, APP, TEXT, AxValue::Text(String::new())).unwrap();
    assert_eq!(value(&b, APP, TEXT), text(""));
}

#[test]
fn bold_and_italic_change_the_typeface_and_underline_does_not() {
    let b = textedit();
    // (check box pressed, typeface after)
    let steps = [
        ("bold", "Bold"),
        ("italic", "Bold Oblique"),
        ("underline", "Bold Oblique"),
        ("bold", "Oblique"),
        ("italic", "Regular"),
    ];
    press_in_turn(&b, APP, &steps, typeface);
    assert_eq!(value(&b, APP, "underline"), Some(AxValue::Bool(true)));
    // A pointer click on the bold box, as a Mac2 `macos: click` at its centre does.
    let none = Modifiers::default();
    gesture(&b, APP, centre(&b, APP, "bold"), none, LEFT_CLICK).unwrap();
    assert_eq!(typeface(&b), text("Bold"));
    // Format ▸ Italic by its key equivalent, with the text view focused.
    key(&b, APP, "cmd+i");
    assert_eq!(typeface(&b), text("Bold Oblique"));
    // Choosing a typeface from the pop-up sets the traits it has.
    press(&b, APP, "typeface").unwrap();
    let regular = nodes(&b)
        .into_iter()
        .find(|n| n.role == Role::MenuItem && n.title.as_deref() == Some("Regular"))
        .unwrap();
    b.perform_action(pid(&b, APP), regular.id, "press", &mut ctx())
        .unwrap();
    assert_eq!(typeface(&b), text("Regular"));
    assert_eq!(value(&b, APP, "bold"), Some(AxValue::Bool(false)));
    assert_eq!(value(&b, APP, "italic"), Some(AxValue::Bool(false)));
}

#[test]
fn the_font_size_is_chosen_or_written_and_alignment_is_one_of_four() {
    let b = textedit();
    act(&b, APP, "font_size", "show_menu").unwrap();
    let big = nodes(&b)
        .into_iter()
        .find(|n| n.role == Role::MenuItem && n.title.as_deref() == Some("24"))
        .unwrap();
    b.perform_action(pid(&b, APP), big.id, "press", &mut ctx())
        .unwrap();
    assert_eq!(value(&b, APP, "font_size"), text("24"));
    assert!(
        b.node_by_identifier(APP, "font_size_menu").is_none(),
        "the list closed"
    );
    set(&b, APP, "font_size", AxValue::Text("18".into())).unwrap();
    assert_eq!(value(&b, APP, "font_size"), text("18"));

    press(&b, APP, "align_center").unwrap();
    let selected = |ident: &str| flag(&b, APP, ident, |s| s.selected);
    assert!(selected("align_center") && !selected("align_left"));
    // Format ▸ Align Right moves the selection too.
    press(&b, APP, "alignRight:").unwrap();
    assert!(selected("align_right") && !selected("align_center"));
}

#[test]
fn a_right_click_on_the_text_view_opens_its_context_menu() {
    let b = textedit();
    type_text(&b, APP, "copied").unwrap();
    let at = centre(&b, APP, TEXT);
    let right = Gesture::Click {
        button: MouseButton::Right,
        count: 1,
    };
    gesture(&b, APP, at, Modifiers::default(), right).unwrap();
    let menu = b.node_by_identifier(APP, "text_context_menu").unwrap();
    assert!(menu.states.visible);
    let all = nodes(&b);
    let menu_index = all.iter().position(|n| n.id == menu.id).unwrap();
    let titles: Vec<&str> = all
        .iter()
        .filter(|n| n.parent == Some(menu_index))
        .filter_map(|n| n.title.as_deref())
        .collect();
    for wanted in ["Cut", "Copy", "Paste", "Import Image"] {
        assert!(titles.contains(&wanted), "{titles:?}");
    }
    // Copy from the context menu copies the text view's text and closes the menu.
    let copy = all
        .iter()
        .find(|n| n.parent == Some(menu_index) && n.title.as_deref() == Some("Copy"))
        .unwrap();
    b.perform_action(pid(&b, APP), copy.id, "press", &mut ctx())
        .unwrap();
    assert_eq!(b.read_clipboard(&mut ctx()).unwrap(), "copied");
    assert!(b.node_by_identifier(APP, "text_context_menu").is_none());
    // A left click on the text view opens no menu.
    gesture(&b, APP, at, Modifiers::default(), LEFT_CLICK).unwrap();
    assert!(b.node_by_identifier(APP, "text_context_menu").is_none());
}

#[test]
fn duplicate_opens_a_second_document_window_whose_controls_are_its_own() {
    let b = textedit();
    type_text(&b, APP, "first").unwrap();
    press(&b, APP, "bold").unwrap();
    press(&b, APP, "duplicateDocument:").unwrap();
    assert_eq!(titles(&b, APP), ["Untitled", "Untitled 2"]);
    let focused: Vec<bool> = b
        .list_windows(pid(&b, APP), &mut ctx())
        .unwrap()
        .iter()
        .map(|w| w.focused)
        .collect();
    assert_eq!(focused, [false, true]);
    // The copy starts with the original's text and format.
    assert_eq!(values_of(&b, TEXT), [text("first"), text("first")]);
    assert_eq!(values_of(&b, "typeface"), [text("Bold"), text("Bold")]);
    // The new window is the key window and its text view has focus: typing goes there.
    type_text(&b, APP, " copy").unwrap();
    assert_eq!(values_of(&b, TEXT), [text("first"), text("first copy")]);
    // Its format bar acts on its own typeface, menu commands on the key window.
    key(&b, APP, "cmd+b");
    assert_eq!(values_of(&b, "typeface"), [text("Bold"), text("Regular")]);
    // File ▸ New numbers on; File ▸ Close closes the key window only.
    key(&b, APP, "cmd+n");
    assert_eq!(titles(&b, APP), ["Untitled", "Untitled 2", "Untitled 3"]);
    key(&b, APP, "cmd+w");
    assert_eq!(titles(&b, APP), ["Untitled", "Untitled 2"]);
}

#[test]
fn a_ctrl_click_on_the_text_view_is_a_right_click() {
    let b = textedit();
    let at = centre(&b, APP, TEXT);
    let held = super::pointer::held;
    gesture(&b, APP, at, held(&["shift"]), LEFT_CLICK).unwrap();
    assert!(b.node_by_identifier(APP, "text_context_menu").is_none());
    gesture(&b, APP, at, held(&["ctrl"]), LEFT_CLICK).unwrap();
    let menu = b.node_by_identifier(APP, "text_context_menu");
    assert!(menu.is_some_and(|m| m.states.visible));
}
