//! Accessible names the way AT-SPI clients (Orca) compute them: the object's own name, else
//! the names of the objects its `labelled-by` relation points at (a label whose
//! mnemonic-widget is this entry), else its description.
//!
//! The relation costs one call (`GetRelationSet`), so it is read only where it can matter:
//! on unnamed objects a person acts on (fields, buttons, sliders...), inside the per-node
//! extras batch the snapshot already runs concurrently. A label target that the same
//! snapshot read already has its name; any other costs one more call.

use std::collections::HashMap;

use atspi::zbus::zvariant::OwnedObjectPath;
use futures::StreamExt;

use super::assemble::Item;
use super::dbus::{ACCESSIBLE, Calls};
use super::ids::ObjRef;
use super::read::CONCURRENCY;
use super::roles;
use super::states::{bit, has};

/// `ATSPI_RELATION_LABELLED_BY`.
const LABELLED_BY: u32 = 2;

/// Whether a node's name may come from a label elsewhere: it has none of its own and is
/// something a person acts on (an unnamed panel needs no name, and asking would cost a call
/// per node of every big tree).
pub(super) fn wants_label(item: &Item) -> bool {
    item.name.is_empty()
        && roles::contextual(item.role, has(item.states, bit::MULTI_LINE), None).is_interactive()
}

/// The object paths (same app) the item's `labelled-by` relation points at: one call.
pub(super) async fn label_paths(calls: &Calls<'_>, bus: &str, item: &Item) -> Vec<String> {
    let obj = ObjRef::new(bus, &item.path);
    let relations: Vec<(u32, Vec<(String, OwnedObjectPath)>)> = calls
        .call(&obj, ACCESSIBLE, "GetRelationSet", &())
        .await
        .unwrap_or_default();
    relations
        .into_iter()
        .filter(|(kind, _)| *kind == LABELLED_BY)
        .flat_map(|(_, targets)| targets)
        .filter(|(b, _)| b == bus)
        .map(|(_, p)| p.as_str().to_owned())
        .collect()
}

/// The names of label objects: those among `known` (read by the same snapshot) for free, the
/// others by one `Name` read each, concurrently.
pub(super) async fn label_names(
    calls: &Calls<'_>,
    bus: &str,
    wanted: impl IntoIterator<Item = &String>,
    known: &HashMap<&str, &str>,
) -> HashMap<String, String> {
    let mut out: HashMap<String, String> = HashMap::new();
    let mut missing: Vec<String> = Vec::new();
    for path in wanted {
        match known.get(path.as_str()) {
            Some(name) => {
                out.insert(path.clone(), (*name).to_owned());
            }
            None if !missing.contains(path) => missing.push(path.clone()),
            None => {}
        }
    }
    let fetched: Vec<(String, Option<String>)> = futures::stream::iter(missing)
        .map(|path| async move {
            let obj = ObjRef::new(bus, &path);
            let name = calls.prop::<String>(&obj, ACCESSIBLE, "Name").await.ok();
            (path, name)
        })
        .buffered(CONCURRENCY)
        .collect()
        .await;
    out.extend(fetched.into_iter().filter_map(|(p, n)| Some((p, n?))));
    out
}

/// The accessible name: the object's own name, else its labels' names (joined by a space,
/// in relation order), else its description. `None` when all are empty.
pub(super) fn accessible_name(own: &str, labels: &[&str], description: &str) -> Option<String> {
    let labelled = labels
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    [own, labelled.as_str(), description]
        .into_iter()
        .find(|s| !s.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_name_then_labels_then_description() {
        assert_eq!(
            accessible_name("Greet", &["Label"], "Says hello").as_deref(),
            Some("Greet")
        );
        assert_eq!(
            accessible_name("", &["Email"], "Where we write").as_deref(),
            Some("Email")
        );
        assert_eq!(
            accessible_name("", &["First", " ", "Last"], "").as_deref(),
            Some("First Last")
        );
        assert_eq!(
            accessible_name("", &[], "Search").as_deref(),
            Some("Search")
        );
        assert_eq!(accessible_name("", &[""], ""), None);
    }

    #[test]
    fn only_unnamed_interactive_objects_ask_for_their_labels() {
        let entry = Item {
            role: 61, // text
            ..Item::default()
        };
        assert!(wants_label(&entry));
        let named = Item {
            name: "Name".into(),
            ..entry.clone()
        };
        assert!(!wants_label(&named));
        let panel = Item {
            role: 39, // panel
            ..Item::default()
        };
        assert!(!wants_label(&panel));
    }
}
