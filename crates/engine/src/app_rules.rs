//! App allow- and deny-lists: which apps a tool, resource or subscription may name.
//!
//! A rule is an app name or bundle id, compared case-insensitively; a trailing `*` makes it
//! a prefix (`1Password*`, `com.1password.*`). The deny-list wins over the allow-list; an
//! empty allow-list allows every app the deny-list does not name. The default deny-list
//! ([`DEFAULT_DENY`]) covers apps whose UI holds secrets or runs commands.

use crate::AppInfo;

/// Apps denied unless `policy.deny_apps` is set: password stores, terminals and the system
/// settings, by name and by bundle id.
pub const DEFAULT_DENY: &[&str] = &[
    "Keychain Access",
    "com.apple.keychainaccess",
    "Terminal",
    "com.apple.Terminal",
    "iTerm2",
    "iTerm",
    "com.googlecode.iterm2",
    "System Settings",
    "System Preferences",
    "com.apple.systempreferences",
    "com.apple.Settings",
    "1Password*",
    "com.1password.*",
    "com.agilebits.onepassword*",
];

/// Why an app was refused: the list and the rule that matched (or that none did).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppDenial {
    pub app: String,
    /// e.g. `policy.deny_apps rule "Terminal"` or `policy.allow_apps (no rule matches)`.
    pub rule: String,
}

impl std::fmt::Display for AppDenial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is refused by {}; an operator can change the policy in the config file and reload it (SIGHUP)",
            self.app, self.rule
        )
    }
}

/// The validated app rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppRules {
    allow: Vec<String>,
    deny: Vec<String>,
}

impl Default for AppRules {
    fn default() -> Self {
        AppRules::new(
            &[],
            &DEFAULT_DENY
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
        )
    }
}

/// Whether a (lowercase) rule names a candidate that is already lowercase.
fn matches(rule: &str, candidate: &str) -> bool {
    match rule.strip_suffix('*') {
        Some(prefix) => candidate.starts_with(prefix),
        None => candidate == rule,
    }
}

impl AppRules {
    /// Rules as configured (case is ignored).
    pub fn new(allow: &[String], deny: &[String]) -> AppRules {
        let norm = |list: &[String]| {
            list.iter()
                .map(|r| r.trim().to_lowercase())
                .filter(|r| !r.is_empty())
                .collect()
        };
        AppRules {
            allow: norm(allow),
            deny: norm(deny),
        }
    }

    /// Checks a rule's syntax: non-empty, `*` only at the end.
    pub fn check_rule(rule: &str) -> Result<(), String> {
        let rule = rule.trim();
        if rule.is_empty() {
            return Err("an app rule must not be empty".into());
        }
        if rule.trim_end_matches('*').contains('*') {
            return Err(format!(
                "{rule:?}: `*` is allowed only at the end (a prefix rule such as \"com.example.*\")"
            ));
        }
        Ok(())
    }

    /// The first rule of `list` naming the app. Each name is lowercased once here, not once
    /// per rule: `list_apps` checks every running app on every call.
    fn rule_for<'a>(list: &'a [String], name: &str, bundle: Option<&str>) -> Option<&'a str> {
        let name = name.to_lowercase();
        let bundle = bundle.map(str::to_lowercase);
        let (name, bundle) = (name.as_str(), bundle.as_deref());
        list.iter()
            .find(|rule| matches(rule, name) || bundle.is_some_and(|b| matches(rule, b)))
            .map(String::as_str)
    }

    /// Whether an app of this name (and bundle id) may be used.
    pub fn check(&self, name: &str, bundle: Option<&str>) -> Result<(), AppDenial> {
        if let Some(rule) = Self::rule_for(&self.deny, name, bundle) {
            return Err(AppDenial {
                app: name.to_owned(),
                rule: format!("policy.deny_apps rule {rule:?}"),
            });
        }
        if !self.allow.is_empty() && Self::rule_for(&self.allow, name, bundle).is_none() {
            return Err(AppDenial {
                app: name.to_owned(),
                rule: "policy.allow_apps (no rule names it)".into(),
            });
        }
        Ok(())
    }

    /// [`AppRules::check`] for an app known by several names (name, bundle id, path, …; the
    /// first is the one reported): denied when any name is denied; with an allow-list, allowed
    /// when any name is allowed.
    pub fn check_names(&self, names: &[&str]) -> Result<(), AppDenial> {
        let app = names.first().copied().unwrap_or_default().to_owned();
        if let Some(rule) = names
            .iter()
            .find_map(|n| Self::rule_for(&self.deny, n, None))
        {
            return Err(AppDenial {
                app,
                rule: format!("policy.deny_apps rule {rule:?}"),
            });
        }
        if !self.allow.is_empty()
            && !names
                .iter()
                .any(|n| Self::rule_for(&self.allow, n, None).is_some())
        {
            return Err(AppDenial {
                app,
                rule: "policy.allow_apps (no rule names it)".into(),
            });
        }
        Ok(())
    }

    /// [`AppRules::check`] for a running app.
    pub fn check_app(&self, app: &AppInfo) -> Result<(), AppDenial> {
        self.check(&app.name, app.bundle_id.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(allow: &[&str], deny: &[&str]) -> AppRules {
        let own = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        AppRules::new(&own(allow), &own(deny))
    }

    #[test]
    fn the_default_deny_list_names_secret_and_shell_apps() {
        let r = AppRules::default();
        for (name, bundle) in [
            ("Keychain Access", Some("com.apple.keychainaccess")),
            ("terminal", None),
            ("iTerm2", Some("com.googlecode.iterm2")),
            ("System Settings", None),
            ("System Preferences", None),
            ("1Password 7", None),
            ("Vault", Some("com.1password.1password")),
        ] {
            let denial = r.check(name, bundle).unwrap_err();
            assert!(
                denial.rule.starts_with("policy.deny_apps rule"),
                "{denial:?}"
            );
            assert!(denial.to_string().contains(name), "{denial}");
        }
        assert_eq!(r.check("Form", Some("dev.axgate.demo.form")), Ok(()));
        assert_eq!(
            r.check("Settings", None),
            Ok(()),
            "only exact names or prefixes"
        );
    }

    #[test]
    fn allow_lists_restrict_and_deny_wins() {
        let r = rules(&["Form", "dev.axgate.*"], &["Editor"]);
        assert_eq!(r.check("form", None), Ok(()));
        assert_eq!(r.check("Notes", Some("dev.axgate.notes")), Ok(()));
        let other = r.check("Safari", Some("com.apple.Safari")).unwrap_err();
        assert_eq!(other.rule, "policy.allow_apps (no rule names it)");
        let denied = r.check("Editor", Some("dev.axgate.editor")).unwrap_err();
        assert_eq!(denied.rule, "policy.deny_apps rule \"editor\"");
        // An empty deny-list overrides the default one.
        assert_eq!(rules(&[], &[]).check("Terminal", None), Ok(()));
    }

    #[test]
    fn rule_syntax_is_checked() {
        assert!(AppRules::check_rule("com.example.*").is_ok());
        assert!(AppRules::check_rule("").is_err());
        assert!(
            AppRules::check_rule("a*b")
                .unwrap_err()
                .contains("only at the end")
        );
    }
}
