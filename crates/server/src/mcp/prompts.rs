//! MCP prompts: `ui-test`, `navigate-to` and `debug-element`. Each takes the app and one
//! more argument and returns a single user message that walks an agent through axgate's
//! tools. Prompts are static text plus the caller's arguments; they read nothing from apps.

use rmcp::ErrorData as McpError;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResult, Prompt, PromptArgument, PromptMessage, Role,
};
use serde_json::Value;

/// One argument of a prompt. Every argument is required.
pub struct ArgDef {
    pub name: &'static str,
    pub description: &'static str,
}

/// A prompt's static description and its text.
pub struct PromptDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The app argument first, then the prompt's own.
    pub args: [ArgDef; 2],
    body: fn(app: &str, second: &str) -> String,
}

const APP_ARG: ArgDef = ArgDef {
    name: "app",
    description: "The app: a name, bundle id or pid from list_apps.",
};

pub static PROMPTS: [PromptDef; 3] = [
    PromptDef {
        name: "ui-test",
        title: "Write a UI test",
        description: "Guides writing a UI test for an app with axgate's tools: discover, read, \
                      act, then wait and assert.",
        args: [
            APP_ARG,
            ArgDef {
                name: "goal",
                description: "What the test should prove, such as \"submitting the form shows \
                              a confirmation\".",
            },
        ],
        body: ui_test,
    },
    PromptDef {
        name: "navigate-to",
        title: "Navigate to a place in an app",
        description: "Describes how to reach a UI location: a menu command through \
                      list_menus/select_menu, or an element through find and a click.",
        args: [
            APP_ARG,
            ArgDef {
                name: "target",
                description: "Where to go, such as \"Preferences > Network\" or \"the Export \
                              dialog\".",
            },
        ],
        body: navigate_to,
    },
    PromptDef {
        name: "debug-element",
        title: "Debug an element that will not act",
        description: "Inspects an element and explains why an action on it might fail: \
                      disabled, not visible, stale handle, or an ignored action.",
        args: [
            APP_ARG,
            ArgDef {
                name: "target",
                description: "The element: a path such as window[0]/button[\"Save\"], a handle \
                              such as e12, or a description.",
            },
        ],
        body: debug_element,
    },
];

pub fn find(name: &str) -> Option<&'static PromptDef> {
    PROMPTS.iter().find(|p| p.name == name)
}

/// The prompt names, for error messages.
pub fn names() -> String {
    PROMPTS
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `prompts/list`.
pub fn list() -> Vec<Prompt> {
    PROMPTS
        .iter()
        .map(|p| {
            let args = p
                .args
                .iter()
                .map(|a| {
                    PromptArgument::new(a.name)
                        .with_description(a.description)
                        .with_required(true)
                })
                .collect();
            Prompt::new(p.name, Some(p.description), Some(args)).with_title(p.title)
        })
        .collect()
}

/// `prompts/get`: unknown prompts and missing or non-string arguments are invalid params.
pub fn get(request: &GetPromptRequestParams) -> Result<GetPromptResult, McpError> {
    let def = find(&request.name).ok_or_else(|| {
        McpError::invalid_params(
            format!("unknown prompt {:?}; prompts are {}", request.name, names()),
            None,
        )
    })?;
    let empty = serde_json::Map::new();
    let given = request.arguments.as_ref().unwrap_or(&empty);
    let mut values = Vec::with_capacity(def.args.len());
    for arg in &def.args {
        let value = match given.get(arg.name) {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim(),
            Some(Value::String(_)) | None => {
                return Err(McpError::invalid_params(
                    format!(
                        "prompt {} needs the argument `{}`: {} Pass every one of {}",
                        def.name,
                        arg.name,
                        arg.description,
                        def.args
                            .iter()
                            .map(|a| format!("`{}`", a.name))
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                    None,
                ));
            }
            Some(_) => {
                return Err(McpError::invalid_params(
                    format!(
                        "prompt {}: argument `{}` must be a string",
                        def.name, arg.name
                    ),
                    None,
                ));
            }
        };
        values.push(value);
    }
    let text = (def.body)(values[0], values[1]);
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(def.title),
    )
}

fn ui_test(app: &str, goal: &str) -> String {
    format!(
        "Write a UI test for the app {app:?} that proves: {goal}

Use axgate's tools in this order:
1. list_apps: check that {app:?} is running and note its exact name; pass it as `app` in \
every call.
2. get_tree (or read the resource axgate://app/{app}/tree) to see the UI, then find with \
`role`, `name` (the accessible name) or `text` to locate each element the goal involves. Every element in a result \
has a `path` such as window[0]/button[\"Save\"] and a `handle` such as e12. Write the test with \
paths (name steps survive restarts); handles only live in this session.
3. Act on the elements one step at a time: click (it verifies an effect), perform_action \
(press, increment, show_menu, …), set_value, type_text or select_menu.
4. After each action, wait_for the expected change (an element appearing, a value or the \
enabled state changing) instead of sleeping, then assert the final value, name or state.
5. Hand back the test as an ordered list of tool calls with their arguments and expected \
results. If a step fails, include the error text: it says what to do next.

Never read back or repeat the contents of password fields; axgate does not return them."
    )
}

fn navigate_to(app: &str, target: &str) -> String {
    format!(
        "Bring the app {app:?} to this place: {target}

1. list_apps: check that {app:?} is running; use its exact name as `app`.
2. If the target is a menu command or sits behind one (a preferences window, a dialog), call \
list_menus for the app, then select_menu with the menu path (such as File > Export…). That is \
more reliable than opening menus by hand.
3. Otherwise find the element that leads there (a tab, a button, a list row, a link) with \
find or get_tree, and click it (click verifies that something changed).
4. After every step the UI changes and older paths may point elsewhere: wait_for the new \
window, sheet or element, and re-read with get_tree before the next step.
5. Stop when the target is on screen. Report the steps taken and the path of the final \
location, so the route can be replayed."
    )
}

fn debug_element(app: &str, target: &str) -> String {
    format!(
        "Find out why acting on {target:?} in the app {app:?} might fail.

1. Inspect it: get_element with app {app:?} and target {target:?}. If the target is a \
description rather than a path or handle, use find first. An unknown or stale handle means the \
element changed or the handle came from another session: re-run find or get_tree for a fresh \
one. A not-found error lists what exists at the parent.
2. Check, in order:
   - enabled: a disabled element refuses actions. wait_for it to become enabled, or do what \
enables it first (fill a required field, select a row).
   - visible: its frame must lie inside its window and on screen. Expand, scroll or switch \
tabs to reveal it.
   - the action: it must be one of the element's `actions`. The error names the supported ones.
3. If the action succeeds but nothing changes, the app ignores accessibility actions on this \
element. Use the click ladder: click with strategy `auto` climbs from a semantic press to a \
synthetic pointer click, select and set value until an effect shows, and reports the rung that \
worked. By hand: perform_action press, then click with strategy `pointer`, or focus it and \
press_key space. Check with get_element or wait_for after each rung.
4. Report the element's role, name, states and actions, the cause, and the call that works."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(name: &str, args: Value) -> GetPromptRequestParams {
        let mut r = GetPromptRequestParams::new(name);
        r.arguments = args.as_object().cloned();
        r
    }

    #[test]
    fn prompts_render_with_arguments_and_refuse_without() {
        let ok = get(&request(
            "ui-test",
            json!({"app": "Form", "goal": "submit works"}),
        ))
        .unwrap();
        let text = serde_json::to_value(&ok.messages).unwrap()[0]["content"]["text"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            text.contains("\"Form\"") && text.contains("submit works"),
            "{text}"
        );
        let missing = get(&request("navigate-to", json!({"app": "Form"}))).unwrap_err();
        assert_eq!(missing.code.0, -32602);
        assert!(missing.message.contains("`target`"), "{}", missing.message);
        let unknown = get(&request("nope", json!({}))).unwrap_err();
        assert!(unknown.message.contains("ui-test"), "{}", unknown.message);
        let typed = get(&request("debug-element", json!({"app": 1, "target": "e1"}))).unwrap_err();
        assert!(
            typed.message.contains("must be a string"),
            "{}",
            typed.message
        );
    }
}
