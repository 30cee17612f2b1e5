//! Launching by identity: before anything starts, the backend says what a launch request
//! would start ([`Launchable`]: name, bundle id, path, aliases), and the app rules are applied
//! to every one of those names as well as to the words asked for. A denied app is never
//! started; the caller is told what it would be told if nothing matched, so a refusal does
//! not reveal that the app is installed (the error keeps the rule for the audit trail).

use std::time::Instant;

use super::backend::Launchable;
use super::engine::Engine;
use super::error::AxError;
use super::launch_request::{self, LaunchRequest};
use super::model::AppInfo;
use super::worker::CallStats;
use crate::app_rules::AppDenial;

/// The names the words of a launch request give, before anything is looked up: the words,
/// and for a path its file name with and without `.app`.
pub fn asked_names(spec: &str) -> Vec<String> {
    let spec = spec.trim().trim_end_matches('/');
    let mut names = vec![spec.to_owned()];
    if let Some((_, file)) = spec.rsplit_once('/') {
        names.push(file.to_owned());
    }
    if let Some(stem) = names.last().and_then(|f| f.strip_suffix(".app")) {
        names.push(stem.to_owned());
    }
    names
}

impl Engine {
    /// Launches what the request names (or activates it when it runs) once its arguments and
    /// environment pass `launch_request::check` and the app rules allow every name of it;
    /// returns once it has a pid.
    pub async fn launch_app(
        &self,
        request: &LaunchRequest,
        deadline: Instant,
        stats: &CallStats,
    ) -> Result<AppInfo, AxError> {
        // Before anything is looked up or started: a refused variable never reaches a backend.
        launch_request::check(request)?;
        let spec = request.spec.as_str();
        let rules = self.app_rules();
        let refuse = |denial: AppDenial| AxError::AppDenied {
            denial,
            shown: Box::new(AxError::NotLaunchable {
                query: spec.to_owned(),
            }),
        };
        let asked = asked_names(spec);
        rules
            .check_names(&asked.iter().map(String::as_str).collect::<Vec<_>>())
            .map_err(refuse)?;
        let owned = request.clone();
        let identity: Launchable = self
            .run_global(deadline, stats, "resolve_launch", move |b, c| {
                b.resolve_launch(&owned, c)
            })
            .await
            .map_err(|e| match e {
                AxError::AppNotFound { .. } | AxError::NotLaunchable { .. } => {
                    AxError::NotLaunchable {
                        query: spec.to_owned(),
                    }
                }
                other => other,
            })?;
        rules.check_names(&identity.names()).map_err(refuse)?;
        let owned = request.clone();
        // A backend whose launcher fails to find the app says so as for a running app
        // (macOS `open`); for a launch, what was missing is something to launch.
        let app = self
            .run_global(deadline, stats, "launch_app", move |b, c| {
                b.launch_app(&owned, c)
            })
            .await
            .map_err(|e| match e {
                AxError::AppNotFound { .. } => AxError::NotLaunchable {
                    query: spec.to_owned(),
                },
                other => other,
            })?;
        // A backstop: what started must be what was resolved. It is only reached when a
        // backend's resolution and its launch disagree, which is a bug worth an error.
        if let Err(denial) = rules.check_app(&app) {
            tracing::error!(
                rule = %denial.rule,
                "a launch resolved to an allowed app started a denied one"
            );
            return Err(refuse(denial));
        }
        Ok(app)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_give_their_app_names() {
        assert_eq!(
            asked_names("/Applications/Notes.app/"),
            ["/Applications/Notes.app", "Notes.app", "Notes"]
        );
        assert_eq!(asked_names("Notes"), ["Notes"]);
        assert_eq!(asked_names("Foo.app"), ["Foo.app", "Foo"]);
        assert_eq!(asked_names("/usr/bin/gedit"), ["/usr/bin/gedit", "gedit"]);
    }

    #[test]
    fn every_name_of_an_identity_is_checked() {
        let rules = crate::app_rules::AppRules::new(&[], &["dev.axgate.demo.notes".into()]);
        let notes = Launchable {
            name: "Notes".into(),
            bundle_id: Some("dev.axgate.demo.notes".into()),
            path: Some("/Applications/Notes.app".into()),
            aliases: Vec::new(),
        };
        let denial = rules.check_names(&notes.names()).unwrap_err();
        assert_eq!(denial.app, "Notes");
        assert!(denial.rule.contains("dev.axgate.demo.notes"), "{denial:?}");
        let by_path = crate::app_rules::AppRules::new(&[], &["Notes".into()]);
        let renamed = Launchable {
            name: "Scratch".into(),
            path: Some("/Applications/Notes.app".into()),
            ..Launchable::default()
        };
        assert!(by_path.check_names(&renamed.names()).is_err());
    }
}
