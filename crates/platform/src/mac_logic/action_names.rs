//! The mapping between normalised action names (`press`, `show_menu`, …) and native AX action
//! names (`AXPress`, `AXShowMenu`, …). Plain data and string rules, no Apple types.
//!
//! The table lists the vocabulary the engine relies on; every other `AX`-prefixed action is
//! mapped by the same mechanical rule (`AXScrollToVisible` ↔ `scroll_to_visible`), which is
//! invertible, so any action a snapshot reports can be performed by its normalised name.
//! Custom actions (`Name:…\nTarget:…`) have no normalised name and are not reported.
//! [`reads_real`] decides where a snapshot reports an element's real actions rather than
//! the ones its role implies.

use axgate_engine::Role;

/// Normalised name → native name, for the actions the engine names itself.
pub(crate) const KNOWN: &[(&str, &str)] = &[
    ("press", "AXPress"),
    ("increment", "AXIncrement"),
    ("decrement", "AXDecrement"),
    ("show_menu", "AXShowMenu"),
    ("confirm", "AXConfirm"),
    ("cancel", "AXCancel"),
    ("raise", "AXRaise"),
    ("pick", "AXPick"),
];

/// The native action for a normalised name; `None` for names no native action can have.
pub(crate) fn to_native(name: &str) -> Option<String> {
    if let Some((_, native)) = KNOWN.iter().find(|(n, _)| *n == name) {
        return Some((*native).to_owned());
    }
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.ends_with('_')
        && !name.contains("__");
    if !valid {
        return None;
    }
    let mut native = String::from("AX");
    for segment in name.split('_') {
        let mut chars = segment.chars();
        if let Some(first) = chars.next() {
            native.push(first.to_ascii_uppercase());
            native.extend(chars);
        }
    }
    Some(native)
}

/// The normalised name of a native action; `None` for custom or malformed actions.
pub(crate) fn from_native(native: &str) -> Option<String> {
    if let Some((name, _)) = KNOWN.iter().find(|(_, n)| *n == native) {
        return Some((*name).to_owned());
    }
    let rest = native.strip_prefix("AX")?;
    if !rest.starts_with(|c: char| c.is_ascii_uppercase())
        || !rest.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return None;
    }
    let mut name = String::with_capacity(rest.len() + 4);
    for (i, c) in rest.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                name.push('_');
            }
            name.push(c.to_ascii_lowercase());
        } else {
            name.push(c);
        }
    }
    Some(name)
}

/// Roles whose elements apps make tappable without saying so in the role: SwiftUI's
/// `onTapGesture` on a group, an image, a cell, a row or a text lists `AXPress` on an
/// element whose role implies no action. `AXOpaqueProviderGroup` and other unmapped roles
/// are [`Role::Unknown`].
const MAYBE_TAPPABLE: &[Role] = &[
    Role::Group,
    Role::Image,
    Role::Cell,
    Role::Row,
    Role::StaticText,
    Role::Unknown,
];

/// Whether a walk reads an element's real action names (one more round trip for it): in a
/// shallow walk only (`max_depth` 0 or 1: how the engine re-reads an element it is about to
/// act on, and how it steps along a path to one), and only for roles that may be tappable
/// without implying a press. Everywhere else the snapshot reports the role's implied
/// actions, and acting reads the real ones before it acts.
pub(crate) fn reads_real(role: Role, max_depth: u32) -> bool {
    max_depth <= 1 && MAYBE_TAPPABLE.contains(&role)
}

/// Normalised names of the native actions an element reports, in order, without duplicates.
pub(crate) fn normalise_all<'a>(natives: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in natives.into_iter().filter_map(from_native) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use axgate_engine::CallCtx;

    use super::*;
    use crate::mac_logic::fake_ax::FakeAx;
    use crate::mac_logic::walk::{Limits, walk};

    #[test]
    fn known_actions_follow_the_mechanical_rule() {
        for (name, native) in KNOWN {
            assert_eq!(to_native(name).as_deref(), Some(*native));
            assert_eq!(from_native(native).as_deref(), Some(*name));
            // The table only pins the vocabulary: the rule gives the same answer.
            let rest = &native[2..];
            let mut snake = String::new();
            for (i, c) in rest.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    snake.push('_');
                }
                snake.push(c.to_ascii_lowercase());
            }
            assert_eq!(&snake, name);
        }
    }

    #[test]
    fn other_ax_actions_round_trip() {
        for native in [
            "AXScrollToVisible",
            "AXShowDefaultUI",
            "AXShowAlternateUI",
            "AXShowURL",
            "AXZoomWindow",
            "AXScrollTo2",
        ] {
            let name = from_native(native).expect(native);
            assert_eq!(to_native(&name).as_deref(), Some(native), "{name}");
        }
        assert_eq!(
            from_native("AXScrollToVisible").as_deref(),
            Some("scroll_to_visible")
        );
    }

    #[test]
    fn custom_and_malformed_actions_have_no_name() {
        assert_eq!(from_native("Name:Copy\nTarget:0x0\nSelector:(null)"), None);
        assert_eq!(from_native("AX"), None);
        assert_eq!(from_native("AXlower"), None);
        assert_eq!(from_native("Press"), None);
        assert_eq!(to_native("Press"), None);
        assert_eq!(to_native("show__menu"), None);
        assert_eq!(to_native("show_menu_"), None);
        assert_eq!(to_native(""), None);
        assert_eq!(to_native("_press"), None);
    }

    /// A SwiftUI window: a tappable group, a plain group, an image that lists `AXPress`,
    /// a cell that lists it, and a button (whose press the role implies).
    fn swiftui() -> FakeAx {
        let mut s = FakeAx::default();
        s.add(0, "AXWindow", &[1, 2, 3, 4, 5]);
        s.add(1, "AXGroup", &[]).actions = vec!["AXPress".into(), "AXShowMenu".into()];
        s.add(2, "AXGroup", &[]).actions = vec!["AXScrollToVisible".into()];
        s.add(3, "AXImage", &[]).actions = vec!["AXPress".into()];
        s.add(4, "AXCell", &[]).actions = vec!["AXPress".into()];
        s.add(5, "AXButton", &[]).actions = vec!["AXPress".into()];
        s
    }

    fn ctx() -> CallCtx {
        CallCtx::new(Instant::now() + Duration::from_secs(60))
    }

    fn limits(max_depth: u32) -> Limits {
        Limits {
            max_depth,
            max_nodes: 100,
            skip_children: 0,
        }
    }

    #[test]
    fn tappable_groups_images_and_cells_get_press_when_they_list_it() {
        // A path step (depth 1): the listing's maybe-tappable elements are asked.
        let walked = walk(&swiftui(), 0, limits(1), &mut ctx()).unwrap();
        let actions: Vec<&[String]> = walked.nodes.iter().map(|n| &n.actions[..]).collect();
        assert_eq!(actions[1], ["press", "show_menu"]);
        assert_eq!(
            actions[2],
            ["scroll_to_visible"],
            "no press it does not list"
        );
        assert_eq!(actions[3], ["press"]);
        assert_eq!(actions[4], ["press"]);
        assert_eq!(actions[5], ["press"]);
        // The engine's re-read of one element before acting on it (depth 0).
        let again = walk(&swiftui(), 1, limits(0), &mut ctx()).unwrap();
        assert_eq!(again.nodes[0].actions, ["press", "show_menu"]);
    }

    #[test]
    fn deep_walks_report_the_roles_actions_without_asking() {
        let mut ctx = ctx();
        let walked = walk(&swiftui(), 0, limits(10), &mut ctx).unwrap();
        assert!(
            walked.nodes[1].actions.is_empty(),
            "implied by the role: none"
        );
        assert_eq!(walked.nodes[5].actions, ["press"]);
        // One round trip per node, the root's range read aside: no action names were read.
        assert_eq!(ctx.round_trips(), walked.nodes.len() as u64 + 1);
    }

    #[test]
    fn only_maybe_tappable_roles_in_shallow_walks_are_asked() {
        for role in [
            Role::Group,
            Role::Image,
            Role::Cell,
            Role::Row,
            Role::StaticText,
        ] {
            assert!(reads_real(role, 0), "{role:?}");
            assert!(reads_real(role, 1), "{role:?}");
            assert!(!reads_real(role, 2), "{role:?}");
        }
        assert!(
            !reads_real(Role::Button, 0),
            "implied; checked when pressed"
        );
        assert!(!reads_real(Role::Window, 1));
    }

    #[test]
    fn normalise_all_drops_custom_and_duplicates() {
        let names = normalise_all(["AXPress", "Name:Foo", "AXShowMenu", "AXPress"]);
        assert_eq!(names, ["press", "show_menu"]);
    }
}
