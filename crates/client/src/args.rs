//! The client commands' command line: where the server is and how to get a token
//! ([`Connect`], each flag also an `AXGATE_CLIENT_*` environment variable — a family
//! `axgate serve` leaves alone, so one job can set them and start a server), how to print
//! ([`Output`]), the subcommands ([`ClientCommand`]), and tool arguments given as one JSON
//! object and/or `key=value` words.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgGroup, Args, Subcommand, ValueEnum};
use serde_json::{Map, Value};

use super::ClientError;
use super::retry::RetryPolicy;

/// The environment variables the client reads, all under this prefix, which `axgate serve`
/// ignores (the one constant both sides share: `config::CLIENT_ENV_PREFIX`).
/// The prefix of the client's environment variables. The server's `config` leaves every
/// variable with this prefix alone (its own `CLIENT_ENV_PREFIX`; a test in `tests/it/cli.rs`
/// holds the two equal), so `axgate serve` and the client can share one shell.
pub const ENV_PREFIX: &str = "AXGATE_CLIENT_";

/// The client's subcommands.
#[derive(Subcommand)]
pub enum ClientCommand {
    /// Call one tool and print its result: `axgate call list_apps`,
    /// `axgate call find app=Form role=button`, `axgate call get_tree '{"app":"Form","depth":2}'`.
    ///
    /// Exit status: 0 the tool succeeded, 1 the tool failed (isError; its message on stderr),
    /// 2 bad usage or a request the server refused as invalid, 3 the server cannot be reached
    /// or stayed busy, 4 no token or a refused one, 130 interrupted (the session is ended first).
    Call(CallArgs),
    /// List the running apps (list_apps).
    Apps(AppsArgs),
    /// Print an app's UI tree (get_tree).
    Tree(TreeArgs),
    /// Find elements of an app whose text contains QUERY (find).
    Find(FindArgs),
    /// Click an element given by a path (window[0]/button["Save"]) or a query ("Save").
    Click(ClickArgs),
    /// Type text into an app's focused element, or into --target.
    Type(TypeArgs),
    /// Save a screenshot of an app's window as a PNG file.
    Screenshot(ScreenshotArgs),
    /// Run UI test scenarios (YAML files; docs/SCENARIOS.md) and report them.
    ///
    /// Each case runs in an MCP session of its own. A failed case leaves a folder under
    /// --artifacts (screenshot, the app's tree, the diff since the case started, the case's
    /// audit lines). Secrets (${secret:NAME}) come from the environment and are never shown.
    ///
    /// Exit status: 0 every case passed, 1 a case failed, 2 invalid files or usage (every
    /// problem named with file:line), 3 the server cannot be reached, 4 no token or a refused
    /// one, 130 interrupted (the case's session is ended first).
    Test(TestArgs),
}

/// Where the server is, and the token to present. The client-credentials flags other than
/// --client-id (group `client_credentials`) mean nothing without it.
#[derive(Args, Clone)]
#[command(group(ArgGroup::new("client_credentials").multiple(true)
    .args(["client_secret_file", "token_url", "scope"]).requires("client_id")))]
pub struct Connect {
    /// Say nothing on stderr while waiting (busy retries, progress); at a terminal these
    /// lines are shown by default, never when stderr is a file or a pipe.
    #[arg(long, short)]
    pub quiet: bool,
    /// The server's MCP endpoint.
    #[arg(
        long,
        env = "AXGATE_CLIENT_URL",
        default_value = "http://127.0.0.1:8741/mcp"
    )]
    pub url: String,
    /// A bearer token (a static token or a JWT). Never printed.
    #[arg(long, env = "AXGATE_CLIENT_TOKEN", hide_env_values = true,
          conflicts_with_all = ["client_id", "github_oidc"])]
    pub token: Option<String>,
    /// OAuth client id: get tokens by the client-credentials grant from --token-url.
    #[arg(long, env = "AXGATE_CLIENT_ID", requires_all = ["client_secret_file", "token_url"],
          conflicts_with = "github_oidc")]
    pub client_id: Option<String>,
    /// A file holding the OAuth client secret (one line).
    #[arg(long, value_name = "FILE", env = "AXGATE_CLIENT_SECRET_FILE")]
    pub client_secret_file: Option<PathBuf>,
    /// The authorization server's token endpoint.
    #[arg(long, value_name = "URL", env = "AXGATE_CLIENT_TOKEN_URL")]
    pub token_url: Option<String>,
    /// Scopes to ask for (space- or comma-separated), e.g. "axgate:read axgate:act".
    #[arg(long, env = "AXGATE_CLIENT_SCOPE")]
    pub scope: Option<String>,
    /// The resource the token is for (RFC 8707 `resource`; the audience of --github-oidc):
    /// the server's configured `auth.audience`. Default: --url.
    #[arg(long, value_name = "URI", env = "AXGATE_CLIENT_RESOURCE")]
    pub resource: Option<String>,
    /// Use the GitHub Actions job's OIDC ID token (the job needs `id-token: write`).
    #[arg(long)]
    pub github_oidc: bool,
    /// The audience of the GitHub OIDC token. Default: --resource.
    #[arg(long, env = "AXGATE_CLIENT_AUDIENCE", requires = "github_oidc")]
    pub audience: Option<String>,
    /// Most attempts of one request while the server is busy (503, 429, rate limited).
    #[arg(long, value_name = "N", default_value_t = 8,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub retry_attempts: u32,
    /// Most seconds spent retrying one request.
    #[arg(long, value_name = "SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub retry_for: u64,
}

impl Connect {
    pub fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy {
            attempts: self.retry_attempts,
            total: Duration::from_secs(self.retry_for),
            ..RetryPolicy::default()
        }
    }

    /// The resource the token is for.
    pub fn resource(&self) -> String {
        self.resource.clone().unwrap_or_else(|| self.url.clone())
    }
}

/// How results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `structuredContent` as pretty JSON (the content blocks when there is none).
    Json,
    /// The text content blocks, as the tool wrote them.
    Text,
    /// Nothing on success; errors still go to stderr.
    Quiet,
}

/// An `--app` as the tools take it: a number is a pid, anything else a name or bundle id.
pub(crate) fn app_value(app: &str) -> Value {
    match app.parse::<u64>() {
        Ok(pid) => Value::from(pid),
        Err(_) => Value::from(app),
    }
}

/// Printing options.
#[derive(Args, Clone)]
pub struct Output {
    /// json, text or quiet (default: json for `call`, text for the other commands).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Where image results are written (each file's name is printed).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub output_dir: PathBuf,
}

#[derive(Args)]
pub struct CallArgs {
    #[command(flatten)]
    pub connect: Connect,
    #[command(flatten)]
    pub output: Output,
    /// List the tools (name and first line of the description) instead of calling one.
    #[arg(long, conflicts_with = "tool")]
    pub list: bool,
    /// The tool to call.
    #[arg(required_unless_present = "list")]
    pub tool: Option<String>,
    /// Its arguments: one JSON object and/or key=value words. A value that parses as JSON
    /// (3, true, null, [1,2], {"a":1}, "quoted") is that JSON; anything else is a string.
    #[arg(value_name = "ARGS")]
    pub arguments: Vec<String>,
}

#[derive(Args)]
pub struct AppsArgs {
    #[command(flatten)]
    pub connect: Connect,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args)]
pub struct TreeArgs {
    /// App name, bundle id or pid.
    pub app: String,
    /// Levels below the app to show.
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Nodes per page (get_tree's max_nodes; the server's default when not given).
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<u32>,
    /// Start at this page (the cursor the previous page named).
    #[arg(long, value_name = "CURSOR", conflicts_with = "all")]
    pub cursor: Option<String>,
    /// Follow every page to the end.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub connect: Connect,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args)]
pub struct FindArgs {
    /// Text that the title, description, value or identifier contains.
    pub query: String,
    /// App name, bundle id or pid.
    #[arg(long)]
    pub app: String,
    #[command(flatten)]
    pub connect: Connect,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args)]
pub struct ClickArgs {
    /// A path such as window[0]/button["Save"], or text naming one element ("Save").
    pub target: String,
    /// App name, bundle id or pid.
    #[arg(long)]
    pub app: String,
    #[command(flatten)]
    pub connect: Connect,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args)]
pub struct TypeArgs {
    /// The text to type (never printed or logged).
    pub text: String,
    /// App name, bundle id or pid.
    #[arg(long)]
    pub app: String,
    /// The element to type into: a path or a query (default: the focused element).
    #[arg(long)]
    pub target: Option<String>,
    #[command(flatten)]
    pub connect: Connect,
    #[command(flatten)]
    pub output: Output,
}

#[derive(Args)]
pub struct ScreenshotArgs {
    /// App name, bundle id or pid (default: the frontmost app).
    #[arg(long)]
    pub app: Option<String>,
    /// The PNG file to write (default: screenshot-<app>-<time>.png in --output-dir).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub connect: Connect,
    #[command(flatten)]
    pub output_options: Output,
}

#[derive(Args)]
pub struct TestArgs {
    /// The scenario files (YAML).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Check the files (keys, tools named, references, saved variables) without a server.
    #[arg(long)]
    pub dry_run: bool,
    /// Write a JUnit XML report (a testsuite per file, a testcase per case) to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Put a folder per failed case here: screenshot (the failing element outlined), tree,
    /// diff, audit lines, and a failed baseline comparison's diff.png and actual.png.
    #[arg(long, value_name = "DIR")]
    pub artifacts: Option<PathBuf>,
    /// Write one self-contained HTML page to FILE: every case and step with its time, the
    /// failures with their screenshot, tree and diff.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write each `expect: {image: …}` step's image as its baseline, and pass it.
    #[arg(long)]
    pub update_baselines: bool,
    /// Also print a GitHub Actions `::error file=…,line=…` annotation per failed case, at its
    /// failing step (the action passes it).
    #[arg(long)]
    pub github_annotations: bool,
    #[command(flatten)]
    pub connect: Connect,
}

/// Tool arguments from the words after the tool's name: at most one JSON object, and any
/// number of `key=value` words (a key given twice is an error).
pub fn arguments(words: &[String]) -> Result<Value, ClientError> {
    let mut map = Map::new();
    let mut object_seen = false;
    for word in words {
        if word.trim_start().starts_with('{') {
            if object_seen {
                return Err(ClientError::Usage(
                    "give the arguments as one JSON object, or as key=value words".into(),
                ));
            }
            object_seen = true;
            let Value::Object(object) = serde_json::from_str::<Value>(word).map_err(|e| {
                ClientError::Usage(format!("the arguments {word:?} are not a JSON object: {e}"))
            })?
            else {
                unreachable!("starts with {{");
            };
            for (key, value) in object {
                insert(&mut map, key, value)?;
            }
            continue;
        }
        let Some((key, value)) = word.split_once('=') else {
            return Err(ClientError::Usage(format!(
                "argument {word:?}: write key=value (e.g. app=Form), or one JSON object"
            )));
        };
        if key.is_empty() {
            return Err(ClientError::Usage(format!(
                "argument {word:?}: the key before `=` is empty"
            )));
        }
        let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.into()));
        insert(&mut map, key.to_owned(), value)?;
    }
    Ok(Value::Object(map))
}

fn insert(map: &mut Map<String, Value>, key: String, value: Value) -> Result<(), ClientError> {
    if map.contains_key(&key) {
        return Err(ClientError::Usage(format!(
            "argument `{key}` is given twice"
        )));
    }
    map.insert(key, value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn key_value_words_are_json_when_they_parse_else_strings() {
        let args = arguments(&words(&[
            "app=Form",
            "depth=3",
            "visible_only=true",
            "root=null",
            r#"region=[0,0,10,10]"#,
            r#"query={"role":"button"}"#,
            r#"title="42""#,
            "text=a=b",
        ]))
        .expect("valid");
        assert_eq!(
            args,
            json!({"app": "Form", "depth": 3, "visible_only": true, "root": null,
                   "region": [0, 0, 10, 10], "query": {"role": "button"}, "title": "42",
                   "text": "a=b"})
        );
    }

    #[test]
    fn one_json_object_mixes_with_words() {
        let args = arguments(&words(&[r#"{"app":"Form"}"#, "depth=2"])).expect("valid");
        assert_eq!(args, json!({"app": "Form", "depth": 2}));
    }

    #[test]
    fn bad_words_say_how_to_write_them() {
        for (bad, says) in [
            (&["Form"][..], "write key=value"),
            (&["=x"][..], "key before `=` is empty"),
            (&["app=a", "app=b"][..], "given twice"),
            (&["{not json"][..], "not a JSON object"),
            (&["{}", "{}"][..], "one JSON object"),
        ] {
            let error = arguments(&words(bad)).expect_err("refused").to_string();
            assert!(error.contains(says), "{bad:?}: {error}");
        }
    }
}
