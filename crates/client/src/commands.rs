//! Running a client command: build the token source and the [`Client`], open the session,
//! do the command's calls, print, and end the session — also when Ctrl-C (SIGINT) or SIGTERM
//! arrives mid-way (exit 130). The terminal commands are thin wrappers over `call`; their
//! TARGET is a path or a query resolved with `find` in the same session, never a handle
//! (a handle lives in one session, and each command is one).

use std::io::IsTerminal as _;

use serde_json::{Map, Value, json};

use super::args::{self, ClientCommand, Connect, Format, app_value};
use super::connect::{check_env, token_source};
use super::listing;
use super::output::{self, Images};
use super::{Client, ClientError, exit, interrupted};

/// Most candidates named when a query matches several elements.
const NAMED_CANDIDATES: usize = 10;

/// Runs `command` on a runtime of its own; the process's exit code.
pub fn run(command: ClientCommand) -> u8 {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("axgate: cannot start the async runtime: {error}");
            return exit::CONNECTION;
        }
    };
    match command {
        ClientCommand::Test(args) => runtime.block_on(super::scenario::run(args)),
        command => runtime.block_on(run_async(command)),
    }
}

async fn run_async(command: ClientCommand) -> u8 {
    let connect = connect_of(&command).clone();
    let client = match check_env()
        .and_then(|()| token_source(&connect))
        .and_then(|token| Client::new(&connect.url, token, connect.retry_policy()))
    {
        Ok(client) => client,
        Err(error) => return report(&error),
    };
    client.show_waits(!connect.quiet && std::io::stderr().is_terminal());
    let work = async {
        client.connect().await?;
        perform(&client, &command).await
    };
    let outcome = tokio::select! {
        outcome = work => Some(outcome),
        () = interrupted() => None,
    };
    let ended = client.end().await;
    match outcome {
        None => {
            let how = if ended.is_ok() {
                "the session was ended"
            } else {
                "the session could not be ended"
            };
            eprintln!("axgate: interrupted; {how}");
            exit::INTERRUPTED
        }
        Some(Ok(code)) => {
            if let Err(error) = ended {
                eprintln!("axgate: warning: {}", output::inert(&error.to_string()));
            }
            code
        }
        Some(Err(error)) => report(&error),
    }
}

fn report(error: &ClientError) -> u8 {
    // A closed standard output is the reader's choice (`| head`): nothing to report.
    if !matches!(error, ClientError::Closed) {
        // A server's words are in it (an error message, a quoted body): shown inert.
        eprintln!("axgate: {}", output::inert(&error.to_string()));
    }
    error.exit_code()
}

fn connect_of(command: &ClientCommand) -> &Connect {
    match command {
        ClientCommand::Call(a) => &a.connect,
        ClientCommand::Apps(a) => &a.connect,
        ClientCommand::Tree(a) => &a.connect,
        ClientCommand::Find(a) => &a.connect,
        ClientCommand::Click(a) => &a.connect,
        ClientCommand::Type(a) => &a.connect,
        ClientCommand::Screenshot(a) => &a.connect,
        ClientCommand::Test(a) => &a.connect,
    }
}

/// The command's calls and printing; its exit code.
async fn perform(client: &Client, command: &ClientCommand) -> Result<u8, ClientError> {
    match command {
        // `run` hands `test` to the scenario runner, which opens a session per case.
        ClientCommand::Test(_) => Err(ClientError::Usage(
            "`axgate test` runs scenario files; it is not one call".into(),
        )),
        ClientCommand::Call(a) => {
            let format = a.output.format_or(Format::Json);
            let Some(tool) = a.tool.as_deref().filter(|_| !a.list) else {
                return output::print_tools(&client.list_tools().await?, format);
            };
            let arguments = args::arguments(&a.arguments)?;
            let result = client.call(tool, arguments).await?;
            output::print_result(&result, format, &a.output.images(tool))
        }
        ClientCommand::Apps(a) => {
            let result = client.call("list_apps", json!({})).await?;
            output::print_result(
                &result,
                a.output.format_or(Format::Text),
                &a.output.images("apps"),
            )
        }
        ClientCommand::Tree(a) => listing::tree(client, a).await,
        ClientCommand::Find(a) => listing::find(client, a).await,
        ClientCommand::Click(a) => {
            let format = a.output.format_or(Format::Text);
            let target = match locate(client, &a.app, &a.target).await? {
                Ok(path) => path,
                Err(failed) => {
                    return output::print_result(&failed, format, &a.output.images("click"));
                }
            };
            let arguments = json!({"app": app_value(&a.app), "target": target});
            let result = client.call("click", arguments).await?;
            output::print_result(&result, format, &a.output.images("click"))
        }
        ClientCommand::Type(a) => {
            let format = a.output.format_or(Format::Text);
            let mut arguments = Map::new();
            arguments.insert("app".into(), app_value(&a.app));
            arguments.insert("text".into(), json!(a.text));
            if let Some(target) = &a.target {
                match locate(client, &a.app, target).await? {
                    Ok(path) => arguments.insert("target".into(), json!(path)),
                    Err(failed) => {
                        return output::print_result(&failed, format, &a.output.images("type"));
                    }
                };
            }
            let result = client.call("type_text", Value::Object(arguments)).await?;
            output::print_result(&result, format, &a.output.images("type"))
        }
        ClientCommand::Screenshot(a) => {
            let format = a.output_options.format_or(Format::Text);
            let app = match &a.app {
                Some(app) => app.clone(),
                None => match frontmost(client).await? {
                    Ok(app) => app,
                    Err(failed) => {
                        return output::print_result(
                            &failed,
                            format,
                            &a.output_options.images("screenshot"),
                        );
                    }
                },
            };
            let result = client
                .call("screenshot", json!({"app": app_value(&app)}))
                .await?;
            let stem = format!("screenshot-{}", file_safe(&app));
            let images = match &a.output {
                Some(file) => Images::File(file),
                None => a.output_options.images(&stem),
            };
            output::print_result(&result, format, &images)
        }
    }
}

/// An app given on the command line: a pid (digits) goes as a number, anything else as a name.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A tool-error result of the client's own making (printed like a tool's).
fn failure(message: String) -> Value {
    json!({"isError": true, "content": [{"type": "text", "text": message}]})
}

/// The name of the frontmost app (`list_apps`).
async fn frontmost(client: &Client) -> Result<Result<String, Value>, ClientError> {
    let result = client.call("list_apps", json!({})).await?;
    if result.get("isError") == Some(&Value::Bool(true)) {
        return Ok(Err(result));
    }
    let apps = result
        .pointer("/structuredContent/apps")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(apps
        .iter()
        .find(|a| a.get("frontmost") == Some(&Value::Bool(true)))
        .and_then(|a| a.get("name").and_then(Value::as_str))
        .map(str::to_owned)
        .ok_or_else(|| failure("no app is frontmost; name one with --app".into())))
}

/// A TARGET as a path: a path as it is; a query resolved with `find` to the one element it
/// names (or whose title or identifier it equals, when it names several). A handle is refused.
async fn locate(
    client: &Client,
    app: &str,
    target: &str,
) -> Result<Result<String, Value>, ClientError> {
    let trimmed = target.trim();
    if trimmed.len() > 1
        && trimmed.starts_with('e')
        && trimmed[1..].bytes().all(|b| b.is_ascii_digit())
    {
        return Err(ClientError::Usage(format!(
            "TARGET {trimmed} is a handle, and a handle lives only in the session that made it \
             (each command is a session of its own): give a path such as \
             window[0]/button[\"Save\"], or text that names the element"
        )));
    }
    if trimmed.is_empty() || trimmed.ends_with(']') {
        return Ok(Ok(trimmed.to_owned()));
    }
    let found = client
        .call(
            "find",
            json!({"app": app_value(app), "text": trimmed, "max_results": 50}),
        )
        .await?;
    if found.get("isError") == Some(&Value::Bool(true)) {
        return Ok(Err(found));
    }
    let matches = found
        .pointer("/structuredContent/matches")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let path = |m: &Value| m.get("path").and_then(Value::as_str).map(str::to_owned);
    let field = |m: &Value, f: &str| m.get(f).and_then(Value::as_str).map(str::to_lowercase);
    let wanted = trimmed.to_lowercase();
    let exact: Vec<Value> = matches
        .iter()
        .filter(|m| {
            field(m, "title").as_deref() == Some(&wanted)
                || field(m, "identifier").as_deref() == Some(&wanted)
        })
        .cloned()
        .collect();
    match (&matches[..], &exact[..]) {
        ([], _) => Ok(Err(failure(format!(
            "no element of {app} has text containing {trimmed:?}; run `axgate tree {app}` to see what exists"
        )))),
        ([one], _) | (_, [one]) => path(one)
            .map(Ok)
            .ok_or_else(|| ClientError::Connection("a find match has no path".into())),
        (many, _) => {
            let named: Vec<String> = many
                .iter()
                .take(NAMED_CANDIDATES)
                .map(|m| {
                    format!(
                        "  {} {}",
                        path(m).unwrap_or_default(),
                        m.get("title").and_then(Value::as_str).unwrap_or("")
                    )
                })
                .collect();
            Ok(Err(failure(format!(
                "{trimmed:?} names {} elements of {app}; give a path or a more exact text:\n{}",
                many.len(),
                named.join("\n")
            ))))
        }
    }
}
