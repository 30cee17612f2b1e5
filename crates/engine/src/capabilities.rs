//! What a backend can do beyond what every backend must: reading trees and hit-testing are
//! required; acting on elements (press, set values, focus, click), typing, keys, telling what
//! a key would press, scrolling, dragging, hovering, long presses, selecting, window operations, launching, quitting,
//! activating, the clipboard and screenshots are capabilities a backend declares
//! (`Backend::capabilities`). A call that needs a capability the backend lacks fails with
//! [`unsupported`], whose text names the capability, and the backend contract suite
//! (`tests/contract/`) checks exactly that for every flag a backend leaves off.

use super::error::AxError;

/// One thing a backend may be unable to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Capability {
    /// Acting on elements: `perform_action`, `set_value`, `focus`, a pointer click (a replay of a
    /// recording reads only).
    Act,
    Typing,
    Keys,
    KeyReceiver,
    Scroll,
    Drag,
    /// Moving the pointer onto a point without pressing (`Gesture::Hover`).
    Hover,
    /// Holding a button down for a while (`Gesture::Press`).
    Press,
    Select,
    Windows,
    Launch,
    Quit,
    Activate,
    Clipboard,
    Screenshots,
}

impl Capability {
    /// Every capability, in the order they are listed.
    pub const ALL: [Capability; 15] = [
        Capability::Act,
        Capability::Typing,
        Capability::Keys,
        Capability::KeyReceiver,
        Capability::Scroll,
        Capability::Drag,
        Capability::Hover,
        Capability::Press,
        Capability::Select,
        Capability::Windows,
        Capability::Launch,
        Capability::Quit,
        Capability::Activate,
        Capability::Clipboard,
        Capability::Screenshots,
    ];

    /// A stable name (`/readyz`, `axgate check`, error texts).
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Act => "act",
            Capability::Typing => "typing",
            Capability::Keys => "keys",
            Capability::KeyReceiver => "key_receiver",
            Capability::Scroll => "scroll",
            Capability::Drag => "drag",
            Capability::Hover => "hover",
            Capability::Press => "press",
            Capability::Select => "select",
            Capability::Windows => "windows",
            Capability::Launch => "launch",
            Capability::Quit => "quit",
            Capability::Activate => "activate",
            Capability::Clipboard => "clipboard",
            Capability::Screenshots => "screenshots",
        }
    }

    /// What a backend without it cannot do, as the error says it.
    fn cannot(self) -> &'static str {
        match self {
            Capability::Act => "act on elements (press, set values, focus, click)",
            Capability::Typing => "type text",
            Capability::Keys => "press keys",
            Capability::KeyReceiver => "tell what a key would press",
            Capability::Scroll => "scroll",
            Capability::Drag => "drag",
            Capability::Hover => "hover the pointer",
            Capability::Press => "hold the pointer down (long press)",
            Capability::Select => "select items",
            Capability::Windows => "operate windows",
            Capability::Launch => "launch apps",
            Capability::Quit => "quit apps",
            Capability::Activate => "activate apps",
            Capability::Clipboard => "read or write the clipboard",
            Capability::Screenshots => "take screenshots",
        }
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// The set of capabilities a backend has. The default is none (a backend that says nothing
/// is assumed to do only what the trait requires).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities(u16);

impl Capabilities {
    /// No optional capability.
    pub const NONE: Capabilities = Capabilities(0);

    /// Every capability.
    pub fn all() -> Capabilities {
        Capability::ALL
            .iter()
            .fold(Capabilities::NONE, |set, cap| set.with(*cap))
    }

    /// This set with `cap` added.
    #[must_use]
    pub fn with(self, cap: Capability) -> Capabilities {
        Capabilities(self.0 | cap.bit())
    }

    /// This set with `cap` removed.
    #[must_use]
    pub fn without(self, cap: Capability) -> Capabilities {
        Capabilities(self.0 & !cap.bit())
    }

    pub fn has(self, cap: Capability) -> bool {
        self.0 & cap.bit() != 0
    }

    /// The capabilities in the set, in [`Capability::ALL`] order.
    pub fn present(self) -> Vec<Capability> {
        Capability::ALL
            .into_iter()
            .filter(|c| self.has(*c))
            .collect()
    }

    /// The capabilities not in the set, in [`Capability::ALL`] order.
    pub fn missing(self) -> Vec<Capability> {
        Capability::ALL
            .into_iter()
            .filter(|c| !self.has(*c))
            .collect()
    }
}

/// The error of a call that needs `cap` on a backend that lacks it: it names the backend,
/// what it cannot do and the capability.
pub fn unsupported(backend: &str, cap: Capability) -> AxError {
    unsupported_because(backend, cap, "")
}

/// [`unsupported`] followed by `more` (why, and what to do instead), when the backend can say.
pub fn unsupported_because(backend: &str, cap: Capability, more: &str) -> AxError {
    AxError::Unsupported(format!(
        "the {backend} backend cannot {}: it lacks the `{}` capability{more}",
        cap.cannot(),
        cap.as_str()
    ))
}

/// Whether `error` is the [`unsupported`] error of `cap` (from any backend).
pub fn lacks(error: &AxError, cap: Capability) -> bool {
    let AxError::Unsupported(text) = error else {
        return false;
    };
    text.starts_with("the ")
        && text.contains(&format!(
            " backend cannot {}: it lacks the `{}` capability",
            cap.cannot(),
            cap.as_str()
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_add_remove_and_list_in_order() {
        let set = Capabilities::NONE
            .with(Capability::Clipboard)
            .with(Capability::Typing);
        assert!(set.has(Capability::Typing) && !set.has(Capability::Keys));
        assert_eq!(set.present(), [Capability::Typing, Capability::Clipboard]);
        assert_eq!(set.missing().len(), Capability::ALL.len() - 2);
        assert_eq!(
            Capabilities::all().without(Capability::Drag).missing(),
            [Capability::Drag]
        );
        assert_eq!(Capabilities::default(), Capabilities::NONE);
    }

    #[test]
    fn names_are_distinct_and_the_error_names_the_capability() {
        let mut names: Vec<&str> = Capability::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Capability::ALL.len());
        let e = unsupported("atspi", Capability::Clipboard);
        assert_eq!(e.kind(), "unsupported");
        assert_eq!(
            e.to_string(),
            "the atspi backend cannot read or write the clipboard: it lacks the `clipboard` capability"
        );
        assert!(lacks(&e, Capability::Clipboard) && !lacks(&e, Capability::Act));
        let act = unsupported_because("replay", Capability::Act, " (asked to click): a recording");
        assert!(lacks(&act, Capability::Act), "{act}");
        assert!(!lacks(
            &AxError::Unsupported("the press action is unsupported".into()),
            Capability::Act
        ));
    }
}
