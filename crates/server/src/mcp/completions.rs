//! `completion/complete`: completes the `app` argument of every prompt and resource template
//! with the names of running apps that start with the typed text (case-insensitive), at
//! most 100 of them, with `total` and `hasMore`. Other arguments get no suggestions.

use rmcp::ErrorData as McpError;
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, Reference};
use serde_json::json;

use super::prompts;
use super::uri::View;
use axgate_engine::{AppInfo, CallStats, Engine};

/// `completion/complete`.
pub async fn complete(
    engine: &Engine,
    request: &CompleteRequestParams,
) -> Result<CompleteResult, McpError> {
    let completes_app = match &request.r#ref {
        Reference::Prompt(p) => {
            let def = prompts::find(&p.name).ok_or_else(|| {
                McpError::invalid_params(
                    format!(
                        "no prompt {:?} to complete; prompts are {}",
                        p.name,
                        prompts::names()
                    ),
                    None,
                )
            })?;
            def.args[0].name == request.argument.name
        }
        Reference::Resource(r) => {
            let templates = View::ALL.map(View::template);
            if !templates.contains(&r.uri) {
                return Err(McpError::invalid_params(
                    format!(
                        "no resource template {:?} to complete; templates are {}",
                        r.uri,
                        templates.join(", ")
                    ),
                    None,
                ));
            }
            request.argument.name == "app"
        }
        other => {
            return Err(McpError::invalid_params(
                format!(
                    "cannot complete a {} reference; use ref/prompt or ref/resource",
                    other.reference_type()
                ),
                None,
            ));
        }
    };
    if !completes_app {
        return Ok(CompleteResult::default());
    }
    let apps = engine
        .list_apps(&CallStats::default())
        .await
        .map_err(|e| McpError::internal_error(e.to_string(), Some(json!({"kind": e.kind()}))))?;
    Ok(CompleteResult::new(app_names(
        &apps,
        &request.argument.value,
    )))
}

/// Distinct names starting with `typed` (case-insensitive), in list order, at most 100.
fn app_names(apps: &[AppInfo], typed: &str) -> CompletionInfo {
    let prefix = typed.trim().to_lowercase();
    let mut names: Vec<String> = Vec::new();
    for app in apps {
        if app.name.to_lowercase().starts_with(&prefix) && !names.contains(&app.name) {
            names.push(app.name.clone());
        }
    }
    let total = names.len();
    names.truncate(CompletionInfo::MAX_VALUES);
    let has_more = total > names.len();
    CompletionInfo::with_pagination(names, Some(total as u32), has_more).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(pid: u32, name: &str) -> AppInfo {
        AppInfo {
            pid,
            name: name.into(),
            bundle_id: None,
            started_at: 0,
            frontmost: false,
        }
    }

    #[test]
    fn names_match_by_prefix_without_case_and_are_capped() {
        let apps = [
            app(1, "Form"),
            app(2, "Finder"),
            app(3, "form"),
            app(4, "Form"),
        ];
        let info = app_names(&apps, "fo");
        assert_eq!(info.values, ["Form", "form"]);
        assert_eq!((info.total, info.has_more), (Some(2), Some(false)));
        let many: Vec<AppInfo> = (0..150).map(|i| app(i, &format!("App {i}"))).collect();
        let info = app_names(&many, "APP");
        assert_eq!(info.values.len(), 100);
        assert_eq!((info.total, info.has_more), (Some(150), Some(true)));
    }
}
