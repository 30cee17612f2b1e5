//! Title paths for what the terminal commands print: the path a person would write in a
//! scenario step or `--target`, computed from a `get_tree` listing (nodes in pre-order, each
//! with its index `path`, `role` and accessible `name`). A step names an element by its name
//! (`button["Submit"]`) when it has one and no earlier sibling of its role has the same
//! name (`role["name"]` picks the first such child); otherwise, and for windows, whose titles
//! are document names that change, by its index among its role (`window[0]`). The server
//! resolves both forms (docs/TOOLS.md, "Element paths").

use std::collections::{HashMap, HashSet};

use serde_json::Value;

/// Builds title paths over one app's listing, page after page, in pre-order.
#[derive(Default)]
pub struct TitlePaths {
    /// Index path → (title path, the (role, name) pairs of its children seen so far).
    known: HashMap<String, (String, HashSet<(String, String)>)>,
}

impl TitlePaths {
    /// The title path of `node` (a `get_tree` or `find` node). Nodes must come parent before
    /// child; a node whose parent was not seen keeps its index path.
    pub fn add(&mut self, node: &Value) -> String {
        let index_path = node["path"].as_str().unwrap_or_default();
        if index_path.is_empty() {
            self.known
                .insert(String::new(), (String::new(), HashSet::new()));
            return String::new();
        }
        let (parent, step) = match index_path.rsplit_once('/') {
            Some((parent, step)) => (parent, step),
            None => ("", index_path),
        };
        let role = node["role"].as_str().unwrap_or_default();
        let name = node["name"].as_str().filter(|n| !n.is_empty());
        let Some((parent_title, seen)) = self.known.get_mut(parent) else {
            return index_path.to_owned();
        };
        let named_step = match name {
            Some(name) if role != "window" && seen.insert((role.to_owned(), name.to_owned())) => {
                format!("{role}[{}]", quote(name))
            }
            _ => step.to_owned(),
        };
        let title = if parent_title.is_empty() {
            named_step
        } else {
            format!("{parent_title}/{named_step}")
        };
        self.known
            .insert(index_path.to_owned(), (title.clone(), HashSet::new()));
        title
    }

    /// The title path already computed for an index path, if its node was seen.
    pub fn of(&self, index_path: &str) -> Option<&str> {
        self.known.get(index_path).map(|(title, _)| title.as_str())
    }
}

/// A name as the path grammar quotes it: `"` and `\` escaped with a backslash.
fn quote(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('"');
    for c in name.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn paths(nodes: &[Value]) -> Vec<String> {
        let mut titles = TitlePaths::default();
        nodes.iter().map(|n| titles.add(n)).collect()
    }

    #[test]
    fn names_where_they_pick_the_element_and_indexes_elsewhere() {
        let nodes = [
            json!({"path": "", "role": "application", "name": "Form"}),
            json!({"path": "window[0]", "role": "window", "name": "Demo Form"}),
            json!({"path": "window[0]/button[0]", "role": "button", "name": "OK"}),
            json!({"path": "window[0]/button[1]", "role": "button", "name": "OK"}),
            json!({"path": "window[0]/button[2]", "role": "button"}),
            json!({"path": "window[0]/group[0]", "role": "group", "name": "Say \"hi\" \\ there"}),
            json!({"path": "window[0]/group[0]/text_field[0]", "role": "text_field", "name": "OK"}),
        ];
        assert_eq!(
            paths(&nodes),
            [
                "",
                "window[0]",
                "window[0]/button[\"OK\"]",
                "window[0]/button[1]",
                "window[0]/button[2]",
                "window[0]/group[\"Say \\\"hi\\\" \\\\ there\"]",
                "window[0]/group[\"Say \\\"hi\\\" \\\\ there\"]/text_field[\"OK\"]",
            ]
        );
    }

    #[test]
    fn every_title_path_parses_back_to_a_path() {
        let nodes = [
            json!({"path": "", "role": "application", "name": "A"}),
            json!({"path": "window[0]", "role": "window", "name": "W"}),
            json!({"path": "window[0]/button[0]", "role": "button", "name": "a\"b\\c/d]"}),
        ];
        for path in paths(&nodes).iter().filter(|p| !p.is_empty()) {
            axgate_parse::element_path::ElementPath::parse(path)
                .unwrap_or_else(|e| panic!("{path}: {e}"));
        }
    }

    #[test]
    fn a_node_whose_parent_was_not_listed_keeps_its_index_path() {
        let mut titles = TitlePaths::default();
        let orphan = json!({"path": "window[0]/button[3]", "role": "button", "name": "Later"});
        assert_eq!(titles.add(&orphan), "window[0]/button[3]");
        assert_eq!(titles.of("window[0]/button[3]"), None);
    }
}
