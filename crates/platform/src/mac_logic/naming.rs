//! The accessible name of a macOS element, computed the way VoiceOver and XCTest's `label` do:
//! `AXTitle`, else `AXDescription` (what `setAccessibilityLabel` sets, and where SwiftUI puts
//! a button's label), else the linked label (`AXTitleUIElement`: its title, else its value),
//! else `AXPlaceholderValue`. A static text is named by its value. The linked label costs one
//! more batched read ([`LABEL_ATTRS`] of the linked element), made only when the element
//! links one and has neither title nor description: no extra round trip anywhere else.
//! Also the role a role description refines: SwiftUI's `List` is an `AXTable` (or an
//! `AXOpaqueProviderGroup`) whose `AXRoleDescription` is "list".

use axgate_engine::{AxValue, RawNode, Role};

use super::decode::AttrValue;

/// What is read of a linked label element (`AXTitleUIElement`), in one round trip.
pub(crate) const LABEL_ATTRS: &[&str] = &["AXTitle", "AXValue"];

/// Native roles that SwiftUI reports for a `List`, known by their role description.
const LIST_LIKE: &[&str] = &["AXTable", "AXOpaqueProviderGroup"];

fn text(value: &AttrValue) -> Option<&str> {
    match value {
        AttrValue::Text(s) if !s.trim().is_empty() => Some(s),
        _ => None,
    }
}

/// The name from the fields a node carries itself (everything but the linked label):
/// title, else description, else placeholder; a static text's value first.
pub(crate) fn own_name(node: &RawNode) -> Option<String> {
    if node.role == Role::StaticText
        && let Some(AxValue::Text(value)) = &node.value
        && !value.trim().is_empty()
    {
        return Some(value.clone());
    }
    [&node.title, &node.description, &node.placeholder]
        .into_iter()
        .flatten()
        .find(|s| !s.trim().is_empty())
        .cloned()
}

/// Whether the linked label is worth its round trip: the element links one
/// (`AXTitleUIElement` holds an element) and nothing it carries ranks above it.
pub(crate) fn wants_linked_label(node: &RawNode, link: &AttrValue) -> bool {
    *link == AttrValue::Element(())
        && node.role != Role::StaticText
        && node.title.is_none()
        && node.description.is_none()
}

/// The text of a linked label from a read of [`LABEL_ATTRS`]: its title, else its value.
pub(crate) fn linked_label(values: &[AttrValue]) -> Option<String> {
    let get = |name| {
        LABEL_ATTRS
            .iter()
            .position(|n| *n == name)
            .and_then(|i| values.get(i))
            .and_then(text)
    };
    get("AXTitle").or_else(|| get("AXValue")).map(str::to_owned)
}

/// Names a node whose linked label was read: the label ranks above the placeholder, below
/// the title and description (which [`wants_linked_label`] already found absent).
pub(crate) fn apply_linked_label(node: &mut RawNode, label_values: &[AttrValue]) {
    if node.title.is_none()
        && node.description.is_none()
        && let Some(label) = linked_label(label_values)
    {
        node.name = Some(label);
    }
}

/// The normalised role once the role description is known: SwiftUI's list containers are a
/// list to the person using them, whatever their native role.
pub(crate) fn refine_role(role: Role, native: &str, role_description: Option<&str>) -> Role {
    let described_list = role_description.is_some_and(|d| d.eq_ignore_ascii_case("list"));
    if described_list && LIST_LIKE.contains(&native) {
        Role::List
    } else {
        role
    }
}

#[cfg(test)]
mod tests {
    use axgate_engine::NodeId;

    use super::*;

    fn node(role: Role) -> RawNode {
        RawNode::new(NodeId(0), role, "AXButton")
    }

    fn t(s: &str) -> Option<String> {
        Some(s.to_owned())
    }

    #[test]
    fn title_then_description_then_placeholder() {
        let mut n = node(Role::Button);
        n.placeholder = t("Search");
        assert_eq!(own_name(&n).as_deref(), Some("Search"));
        n.description = t("New Chat");
        assert_eq!(own_name(&n).as_deref(), Some("New Chat"));
        n.title = t("Save");
        assert_eq!(own_name(&n).as_deref(), Some("Save"));
    }

    #[test]
    fn blank_fields_do_not_name() {
        let mut n = node(Role::Button);
        n.title = t("  ");
        n.description = t("Close");
        assert_eq!(own_name(&n).as_deref(), Some("Close"));
        assert_eq!(own_name(&node(Role::Group)), None);
    }

    #[test]
    fn static_text_is_named_by_its_value() {
        let mut n = node(Role::StaticText);
        n.value = Some(AxValue::Text("Message".into()));
        n.description = t("ignored");
        assert_eq!(own_name(&n).as_deref(), Some("Message"));
        n.value = Some(AxValue::Text(String::new()));
        assert_eq!(own_name(&n).as_deref(), Some("ignored"));
    }

    #[test]
    fn the_linked_label_is_read_only_when_nothing_ranks_above_it() {
        let mut n = node(Role::Window);
        assert!(wants_linked_label(&n, &AttrValue::Element(())));
        assert!(!wants_linked_label(&n, &AttrValue::Missing));
        n.placeholder = t("hint");
        assert!(
            wants_linked_label(&n, &AttrValue::Element(())),
            "the placeholder ranks below the link"
        );
        n.description = t("Sidebar");
        assert!(!wants_linked_label(&n, &AttrValue::Element(())));
        assert!(!wants_linked_label(
            &node(Role::StaticText),
            &AttrValue::Element(())
        ));
    }

    #[test]
    fn the_linked_label_is_its_title_else_its_value_and_beats_the_placeholder() {
        let mut n = node(Role::TextField);
        n.placeholder = t("you@example.com");
        n.name = own_name(&n);
        apply_linked_label(
            &mut n,
            &[AttrValue::Missing, AttrValue::Text("E-mail".into())],
        );
        assert_eq!(n.name.as_deref(), Some("E-mail"));
        apply_linked_label(
            &mut n,
            &[AttrValue::Text("Address".into()), AttrValue::Missing],
        );
        assert_eq!(n.name.as_deref(), Some("Address"));
        let mut unlabelled = node(Role::TextField);
        unlabelled.placeholder = t("you@example.com");
        unlabelled.name = own_name(&unlabelled);
        apply_linked_label(&mut unlabelled, &[AttrValue::Missing, AttrValue::Missing]);
        assert_eq!(unlabelled.name.as_deref(), Some("you@example.com"));
    }

    #[test]
    fn swiftui_lists_are_lists() {
        assert_eq!(
            refine_role(Role::Table, "AXTable", Some("list")),
            Role::List
        );
        assert_eq!(
            refine_role(Role::Unknown, "AXOpaqueProviderGroup", Some("list")),
            Role::List
        );
        assert_eq!(
            refine_role(Role::Table, "AXTable", Some("table")),
            Role::Table
        );
        assert_eq!(refine_role(Role::Table, "AXTable", None), Role::Table);
        assert_eq!(
            refine_role(Role::Group, "AXGroup", Some("list")),
            Role::Group
        );
    }
}
