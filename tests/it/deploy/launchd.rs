//! The launchd agent and the install script.

use super::*;

/// The entries of a plist `<dict>` element: each `<key>` with the element after it.
fn dict_entries<'a, 'input>(
    dict: roxmltree::Node<'a, 'input>,
) -> BTreeMap<String, roxmltree::Node<'a, 'input>> {
    assert!(
        dict.has_tag_name("dict"),
        "not a dict: {:?}",
        dict.tag_name()
    );
    let children: Vec<_> = dict.children().filter(|n| n.is_element()).collect();
    assert!(children.len() % 2 == 0, "a dict of key/value pairs");
    children
        .chunks(2)
        .map(|pair| {
            assert!(pair[0].has_tag_name("key"), "key first");
            (pair[0].text().unwrap_or("").to_owned(), pair[1])
        })
        .collect()
}

fn string_of(node: roxmltree::Node<'_, '_>) -> String {
    assert!(
        node.has_tag_name("string"),
        "not a string: {:?}",
        node.tag_name()
    );
    node.text().unwrap_or("").to_owned()
}

#[test]
fn launch_agent_plist_has_the_keys_launchd_needs() {
    let text = read("deploy/launchd/dev.axgate.agent.plist");
    assert!(
        text.contains(r#"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN""#),
        "the plist DOCTYPE"
    );
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(&text, options)
        .expect("the plist is well-formed XML");
    let plist = doc.root_element();
    assert!(plist.has_tag_name("plist"));
    assert_eq!(plist.attribute("version"), Some("1.0"));
    let top = plist.children().find(|n| n.is_element()).unwrap();
    let keys = dict_entries(top);
    let get = |key: &str| {
        *keys
            .get(key)
            .unwrap_or_else(|| panic!("the plist has no {key}"))
    };

    assert_eq!(string_of(get("Label")), LABEL);

    let args: Vec<String> = get("ProgramArguments")
        .children()
        .filter(|n| n.is_element())
        .map(string_of)
        .collect();
    assert!(args[0].ends_with("/axgate"), "{args:?}");
    assert!(
        args[0].starts_with('/'),
        "launchd needs an absolute path: {args:?}"
    );
    assert!(args.iter().any(|a| a == "serve"), "{args:?}");
    let config = args.iter().position(|a| a == "--config").expect("--config");
    assert_eq!(args[config + 1], "/usr/local/etc/axgate/axgate.toml");

    assert!(get("RunAtLoad").has_tag_name("true"));
    let keep_alive = get("KeepAlive");
    assert!(
        keep_alive.has_tag_name("true") || keep_alive.has_tag_name("dict"),
        "KeepAlive restarts axgate"
    );
    assert_eq!(string_of(get("LimitLoadToSessionType")), "Aqua");
    assert_eq!(string_of(get("ProcessType")), "Interactive");
    assert!(get("ThrottleInterval").has_tag_name("integer"));

    for key in ["StandardOutPath", "StandardErrorPath"] {
        let path = string_of(get(key));
        assert!(
            path.starts_with('/') && !path.contains('~') && !path.contains('$'),
            "launchd expands nothing in {key}: {path}"
        );
    }

    // Every environment variable is a config key: axgate refuses unknown AXGATE_ names.
    let known = config_env_names();
    for (name, value) in dict_entries(get("EnvironmentVariables")) {
        assert!(known.contains(&name), "{name} is not a config key");
        string_of(value);
    }
}

/// `AXGATE_<SECTION>_<KEY>` of every key in config/axgate.example.toml.
fn config_env_names() -> BTreeSet<String> {
    let example: toml::Table = read("config/axgate.example.toml").parse().unwrap();
    let mut out = BTreeSet::new();
    for (section, keys) in &example {
        for key in keys.as_table().unwrap().keys() {
            out.insert(format!("AXGATE_{section}_{key}").to_uppercase());
        }
    }
    assert!(out.contains("AXGATE_LOG_FORMAT"));
    out
}

fn install_script(args: &[&str]) -> Output {
    Command::new("bash")
        .arg(root().join("deploy/launchd/install.sh"))
        .args(args)
        .output()
        .expect("bash runs")
}

#[test]
fn install_script_dry_run_shows_the_launchctl_steps() {
    let output = install_script(&[
        "--dry-run",
        "--user",
        "ci",
        "--binary",
        "/tmp/x",
        "--config",
        "/tmp/y",
    ]);
    let text = combined(&output);
    assert!(output.status.success(), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let plist = format!("/Library/LaunchAgents/{LABEL}.plist");
    let find = |what: &str| {
        lines
            .iter()
            .position(|l| l.contains(what))
            .unwrap_or_else(|| panic!("the dry run does not show {what:?}:\n{stdout}"))
    };

    let bootstrap = find("launchctl bootstrap");
    let line = lines[bootstrap];
    assert!(
        line.contains("gui/"),
        "bootstrap into the GUI domain: {line}"
    );
    assert!(
        line.ends_with(&plist),
        "bootstrap loads the installed plist: {line}"
    );
    assert!(line.contains("/ci/"), "the plist of user ci: {line}");

    let bootout = find("launchctl bootout");
    assert!(
        lines[bootout].contains(&format!("/{LABEL}")),
        "{}",
        lines[bootout]
    );
    let kickstart = find("launchctl kickstart -k");
    assert!(lines[kickstart].contains("gui/"), "{}", lines[kickstart]);
    assert!(bootout < bootstrap && bootstrap < kickstart, "{stdout}");

    let binary = find("/usr/local/bin/axgate");
    assert!(
        lines[binary].contains("/tmp/x"),
        "installs the given binary: {stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("/tmp/y") && l.contains("/usr/local/etc/axgate/")),
        "installs the given config: {stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(&plist) && !l.contains("launchctl")),
        "copies the plist into LaunchAgents: {stdout}"
    );
    assert!(
        stdout.contains("curl http://127.0.0.1:8741/readyz"),
        "{stdout}"
    );
    assert!(stdout.contains("Accessibility"), "{stdout}");
}

#[test]
fn install_script_has_help_and_refuses_unknown_options() {
    let help = install_script(&["--help"]);
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    for option in ["--user", "--binary", "--config", "--dry-run"] {
        assert!(text.contains(option), "--help lacks {option}:\n{text}");
    }
    let bad = install_script(&["--dry-run", "--user", "ci", "--frobnicate"]);
    assert!(!bad.status.success());
    assert!(combined(&bad).contains("--frobnicate"));
}

#[test]
fn install_script_is_strict_bash() {
    let text = read("deploy/launchd/install.sh");
    assert!(text.starts_with("#!/usr/bin/env bash\n"));
    assert!(text.contains("set -euo pipefail"));
    let syntax = Command::new("bash")
        .arg("-n")
        .arg(root().join("deploy/launchd/install.sh"))
        .output()
        .unwrap();
    assert!(syntax.status.success(), "{}", combined(&syntax));
}
