//! Between AT-SPI action names (`click`, `press`, `activate`, `toggle`, `expand or contract`)
//! and the engine's normalised names (`press`, `confirm`, `expand_or_contract`, …), and the
//! GTK action lists a snapshot can know from the role alone. Plain string rules.
//!
//! Reading an element's actions costs one D-Bus call (`Action.GetActions`). For GTK apps the
//! list is fixed by the widget class, so a snapshot takes it from [`gtk_actions`] for the
//! roles listed there and asks the app only for the others; `perform_action` always reads
//! the real list, so an inferred name that is missing fails with what the element offers.

/// Native names that mean "do the element's main thing", in order of preference.
const PRESS: &[&str] = &["click", "press", "activate", "toggle", "jump", "open"];

/// Native roles whose `activate` means "confirm the entry" (Return), not a press.
const CONFIRMING: &[&str] = &["text", "password text", "entry", "spin button"];

/// The normalised name of a native action of an element with this native role.
pub(super) fn normalise(native_role: &str, action: &str) -> String {
    let lower = action.trim().to_lowercase();
    if lower == "activate" && CONFIRMING.contains(&native_role) {
        return "confirm".to_owned();
    }
    if PRESS.contains(&lower.as_str()) {
        return "press".to_owned();
    }
    match lower.as_str() {
        "showmenu" | "show menu" | "menu" | "popup" => return "show_menu".to_owned(),
        _ => {}
    }
    let mut out = String::with_capacity(lower.len());
    for c in lower.chars() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// Normalised names of an element's native actions, without duplicates or empty names.
pub(super) fn normalise_all(native_role: &str, actions: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in actions {
        let n = normalise(native_role, a);
        if !n.is_empty() && !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// The index of the native action to run for the normalised name `wanted`; for `press`, the
/// most specific of several candidates (`click` before `activate`).
pub(super) fn native_index(native_role: &str, actions: &[String], wanted: &str) -> Option<usize> {
    let candidates: Vec<usize> = (0..actions.len())
        .filter(|&i| normalise(native_role, &actions[i]) == wanted)
        .collect();
    if wanted == "press" {
        for pref in PRESS {
            if let Some(&i) = candidates
                .iter()
                .find(|&&i| actions[i].trim().eq_ignore_ascii_case(pref))
            {
                return Some(i);
            }
        }
    }
    candidates.first().copied()
}

/// The native actions every GTK 3 element of this native role offers, when fixed by its
/// class; `None` means ask the app.
pub(super) fn gtk_actions(native_role: &str) -> Option<&'static [&'static str]> {
    match native_role {
        "push button" | "check box" | "radio button" | "menu item" | "check menu item"
        | "radio menu item" => Some(&["click"]),
        "combo box" => Some(&["press"]),
        "text" | "password text" | "spin button" => Some(&["activate"]),
        "menu" => Some(&["click"]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn main_actions_become_press() {
        assert_eq!(normalise("push button", "click"), "press");
        assert_eq!(normalise("combo box", "press"), "press");
        assert_eq!(normalise("toggle button", "toggle"), "press");
        assert_eq!(normalise("expander", "activate"), "press");
        assert_eq!(normalise("text", "activate"), "confirm");
        assert_eq!(
            normalise("table cell", "expand or contract"),
            "expand_or_contract"
        );
        assert_eq!(normalise("x", "  Show-Menu "), "show_menu");
        assert_eq!(normalise("x", "--"), "");
    }

    #[test]
    fn duplicates_collapse_and_press_prefers_click() {
        let acts = names(&["activate", "click", "edit"]);
        assert_eq!(normalise_all("table cell", &acts), ["press", "edit"]);
        assert_eq!(native_index("table cell", &acts, "press"), Some(1));
        assert_eq!(native_index("table cell", &acts, "edit"), Some(2));
        assert_eq!(native_index("table cell", &acts, "confirm"), None);
        assert_eq!(
            native_index("text", &names(&["activate"]), "confirm"),
            Some(0)
        );
    }

    #[test]
    fn gtk_roles_with_fixed_actions() {
        assert_eq!(gtk_actions("push button"), Some(&["click"][..]));
        assert_eq!(gtk_actions("toggle button"), None, "switches say toggle");
        assert_eq!(gtk_actions("table cell"), None);
    }
}
