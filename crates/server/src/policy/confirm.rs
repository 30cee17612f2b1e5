//! Destructive-action confirmation: which presses need the user's yes first.
//!
//! A press (or click, or menu choice) on an element whose label contains one of the
//! configured words (`policy.confirm_words`, whole words, case-insensitive; a word may be a
//! phrase such as "empty trash") is destructive. The MCP layer then asks the user through form
//! elicitation when the client declared it; otherwise `policy.unconfirmed` decides, and the
//! audit trail records which way it went ([`Confirmation`]).

/// Words that make a press destructive unless `policy.confirm_words` is set.
pub const DEFAULT_WORDS: &[&str] = &[
    "delete",
    "erase",
    "remove",
    "quit",
    "reset",
    "format",
    "destroy",
    "discard",
    "wipe",
    "uninstall",
    "overwrite",
    "revoke",
    "empty trash",
    "shut down",
    "restart",
    "log out",
];

/// What to do with a destructive press when no person can be asked.
///
/// What counts as "confirmed by a person": the answer to a form elicitation sent to the
/// client of a session (a server-to-client request its host shows to its user). On the
/// sessionless path (2026-07-28) the question can only come back as the call's own
/// input-required result, which the calling program reads and can answer itself: that
/// answer counts as a person's only for a principal whose `unconfirmed` is `"ask"` (its
/// operator vouches that a person answers its input-required results). For every other
/// principal a sessionless destructive act is never asked: `refuse` or `allow` decides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unconfirmed {
    /// Refuse it, saying why (the default).
    #[default]
    Refuse,
    /// Go ahead; the audit line says it was allowed by configuration.
    Allow,
    /// Ask through an input-required result on the sessionless path too, and take the
    /// caller's answer as a person's; refuse when the caller cannot be asked at all.
    Ask,
}

impl Unconfirmed {
    pub fn parse(text: &str) -> Result<Unconfirmed, String> {
        match text {
            "refuse" => Ok(Unconfirmed::Refuse),
            "allow" => Ok(Unconfirmed::Allow),
            "ask" => Ok(Unconfirmed::Ask),
            _ => Err("expected refuse, allow or ask".into()),
        }
    }
}

/// How a destructive press was settled; recorded on its audit line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confirmation {
    /// The user accepted the elicitation.
    Accepted,
    /// The user declined or cancelled it: the press did not happen.
    Declined,
    /// The client cannot be asked and `policy.unconfirmed = "refuse"`.
    RefusedUnasked,
    /// The client cannot be asked and `policy.unconfirmed = "allow"`.
    AllowedUnasked,
    /// The decision point looked at every element the act would activate and none looks
    /// destructive.
    NotNeeded,
    /// A sessionless call stopped before the act to ask the user through an input-required
    /// result; the act happens only on a retry that carries the user's yes.
    InputRequired,
}

impl Confirmation {
    pub fn as_str(self) -> &'static str {
        match self {
            Confirmation::Accepted => "accepted_by_user",
            Confirmation::Declined => "declined_by_user",
            Confirmation::RefusedUnasked => "refused_without_elicitation",
            Confirmation::AllowedUnasked => "allowed_without_elicitation",
            Confirmation::NotNeeded => "not_destructive",
            Confirmation::InputRequired => "input_required",
        }
    }

    /// Whether the press may go ahead.
    pub fn proceeds(self) -> bool {
        matches!(
            self,
            Confirmation::Accepted | Confirmation::AllowedUnasked | Confirmation::NotNeeded
        )
    }
}

fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The configured destructive words, each split into its lower-case words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DestructiveWords {
    phrases: Vec<Vec<String>>,
}

impl Default for DestructiveWords {
    fn default() -> Self {
        DestructiveWords::new(
            &DEFAULT_WORDS
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
        )
    }
}

impl DestructiveWords {
    pub fn new(words: &[String]) -> DestructiveWords {
        DestructiveWords {
            phrases: words
                .iter()
                .map(|w| words_of(w))
                .filter(|p| !p.is_empty())
                .collect(),
        }
    }

    /// The first configured word (or phrase) that `label` contains as whole words.
    pub fn find(&self, label: &str) -> Option<String> {
        let words = words_of(label);
        self.phrases
            .iter()
            .find(|phrase| words.windows(phrase.len()).any(|w| w == phrase.as_slice()))
            .map(|phrase| phrase.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_and_phrases_match_case_insensitively() {
        let words = DestructiveWords::default();
        assert_eq!(words.find("Delete"), Some("delete".into()));
        assert_eq!(words.find("Delete All Messages…"), Some("delete".into()));
        assert_eq!(words.find("Empty Trash"), Some("empty trash".into()));
        assert_eq!(words.find("Quit Form"), Some("quit".into()));
        assert_eq!(words.find("Deleted items"), None, "whole words only");
        assert_eq!(words.find("Formatting"), None);
        assert_eq!(words.find("Save"), None);
        assert_eq!(words.find("Trash"), None, "a phrase needs all its words");
        let custom = DestructiveWords::new(&["Send".into()]);
        assert_eq!(custom.find("send now"), Some("send".into()));
        assert_eq!(
            custom.find("Delete"),
            None,
            "configured words replace the defaults"
        );
    }

    #[test]
    fn unconfirmed_choices_parse() {
        assert_eq!(Unconfirmed::parse("refuse"), Ok(Unconfirmed::Refuse));
        assert_eq!(Unconfirmed::parse("allow"), Ok(Unconfirmed::Allow));
        assert_eq!(Unconfirmed::parse("ask"), Ok(Unconfirmed::Ask));
        assert!(Unconfirmed::parse("confirm").is_err());
        assert!(Confirmation::Accepted.proceeds() && Confirmation::AllowedUnasked.proceeds());
        assert!(!Confirmation::Declined.proceeds() && !Confirmation::RefusedUnasked.proceeds());
    }
}
