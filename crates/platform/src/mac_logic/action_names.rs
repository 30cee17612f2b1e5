//! The mapping between normalised action names (`press`, `show_menu`, …) and native AX action
//! names (`AXPress`, `AXShowMenu`, …). Plain data and string rules, no Apple types.
//!
//! The table lists the vocabulary the engine relies on; every other `AX`-prefixed action is
//! mapped by the same mechanical rule (`AXScrollToVisible` ↔ `scroll_to_visible`), which is
//! invertible, so any action a snapshot reports can be performed by its normalised name.
//! Custom actions (`Name:…\nTarget:…`) have no normalised name and are not reported.

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
    use super::*;

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

    #[test]
    fn normalise_all_drops_custom_and_duplicates() {
        let names = normalise_all(["AXPress", "Name:Foo", "AXShowMenu", "AXPress"]);
        assert_eq!(names, ["press", "show_menu"]);
    }
}
