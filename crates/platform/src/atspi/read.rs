//! Reading AT-SPI objects: a whole app in one `Cache.GetItems` call, single objects by direct
//! calls (for small reads and for children of `manages-descendants` containers, which the
//! cache leaves out), and the per-node extras the cache lacks — frame, value, text, actions,
//! labels of unnamed controls — fetched concurrently so their latency overlaps.

use atspi::zbus::zvariant::OwnedObjectPath;
use futures::StreamExt;

use axgate_engine::{AxValue, Rect};

use super::action_names;
use super::assemble::{Ifaces, Item};
use super::dbus::{
    ACCESSIBLE, ACTION, CACHE, CACHE_PATH, COMPONENT, Calls, Fail, SCREEN, TEXT, VALUE, take,
};
use super::ids::ObjRef;
use super::names;
use super::roles;
use super::states::{bit, has};

/// The path AT-SPI uses for "no object".
pub(super) const NULL_PATH: &str = "/org/a11y/atspi/null";

/// Node reads in flight at once. GTK answers on its main loop one by one; overlapping the
/// calls hides the bus latency.
pub(super) const CONCURRENCY: usize = 32;

/// One `Cache.GetItems` entry: `((so)(so)(so)iiassusau)`.
type CacheEntry = (
    (String, OwnedObjectPath),
    (String, OwnedObjectPath),
    (String, OwnedObjectPath),
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

/// Two 32-bit state words → one set of bits.
fn state_bits(words: &[u32]) -> u64 {
    let lo = u64::from(words.first().copied().unwrap_or(0));
    let hi = u64::from(words.get(1).copied().unwrap_or(0));
    lo | (hi << 32)
}

/// Every object of an app, in one call.
pub(super) async fn cache_items(calls: &Calls<'_>, bus: &str) -> Result<Vec<Item>, Fail> {
    let entries: Vec<CacheEntry> = calls
        .call(&(bus, CACHE_PATH), CACHE, "GetItems", &())
        .await?;
    Ok(entries
        .into_iter()
        .map(
            |(obj, _app, parent, index, children, ifaces, short_name, role, name, states)| {
                let parent_path = parent.1.as_str();
                Item {
                    path: obj.1.as_str().to_owned(),
                    parent: (parent.0 == obj.0 && parent_path != NULL_PATH)
                        .then(|| parent_path.to_owned()),
                    index,
                    children,
                    role,
                    // In the cache, the short name is the accessible name and the name is the
                    // description.
                    name: short_name,
                    description: name,
                    states: state_bits(&states),
                    ifaces: Ifaces::from_names(ifaces.iter().map(String::as_str)),
                }
            },
        )
        .collect())
}

/// One object by direct calls (four, concurrently).
pub(super) async fn direct_item(
    calls: &Calls<'_>,
    obj: &ObjRef,
    parent: Option<&str>,
    index: i32,
) -> Result<Item, Fail> {
    let props = calls.all_props(obj, ACCESSIBLE);
    let role = calls.call::<_, u32>(obj, ACCESSIBLE, "GetRole", &());
    let state = calls.call::<_, Vec<u32>>(obj, ACCESSIBLE, "GetState", &());
    let ifaces = calls.call::<_, Vec<String>>(obj, ACCESSIBLE, "GetInterfaces", &());
    let (props, role, state, ifaces) = futures::join!(props, role, state, ifaces);
    let props = props?;
    Ok(Item {
        path: obj.path.to_string(),
        parent: parent.map(str::to_owned),
        index,
        children: take::<i32>(&props, "ChildCount").unwrap_or(0),
        role: role?,
        name: take::<String>(&props, "Name").unwrap_or_default(),
        description: take::<String>(&props, "Description").unwrap_or_default(),
        states: state_bits(&state?),
        ifaces: Ifaces::from_names(ifaces?.iter().map(String::as_str)),
    })
}

/// The object paths of an object's children (one call), at most `limit` of them.
pub(super) async fn children(
    calls: &Calls<'_>,
    obj: &ObjRef,
    limit: usize,
) -> Result<Vec<String>, Fail> {
    let kids: Vec<(String, OwnedObjectPath)> =
        calls.call(obj, ACCESSIBLE, "GetChildren", &()).await?;
    Ok(kids
        .into_iter()
        .filter(|(bus, p)| *bus == *obj.bus && p.as_str() != NULL_PATH)
        .take(limit)
        .map(|(_, p)| p.as_str().to_owned())
        .collect())
}

/// The first `count` children of a container by index (`GetChildAtIndex`, concurrently), for
/// containers too big to list whole.
pub(super) async fn children_by_index(
    calls: &Calls<'_>,
    obj: &ObjRef,
    count: usize,
) -> Vec<String> {
    futures::stream::iter(0..count)
        .map(|i| async move {
            calls
                .call::<_, (String, OwnedObjectPath)>(
                    obj,
                    ACCESSIBLE,
                    "GetChildAtIndex",
                    &(i as i32,),
                )
                .await
                .ok()
                .filter(|(bus, p)| *bus == *obj.bus && p.as_str() != NULL_PATH)
                .map(|(_, p)| p.as_str().to_owned())
        })
        .buffered(CONCURRENCY)
        .filter_map(|x| async move { x })
        .collect()
        .await
}

/// Several objects by direct calls, concurrently, in the order given. Objects that vanished
/// meanwhile are left out.
pub(super) async fn direct_items(
    calls: &Calls<'_>,
    bus: &str,
    wanted: Vec<(String, Option<String>, i32)>,
) -> Vec<Item> {
    futures::stream::iter(wanted)
        .map(|(path, parent, index)| async move {
            let obj = ObjRef::new(bus, &path);
            direct_item(calls, &obj, parent.as_deref(), index)
                .await
                .ok()
        })
        .buffered(CONCURRENCY)
        .filter_map(|x| async move { x })
        .collect()
        .await
}

/// What a snapshot reads per node beyond the item itself.
#[derive(Clone, Debug, Default)]
pub(super) struct Extras {
    pub(super) frame: Option<Rect>,
    pub(super) value: Option<AxValue>,
    pub(super) min: Option<f64>,
    pub(super) max: Option<f64>,
    /// Native action names, when read or known.
    pub(super) actions: Vec<String>,
    /// Object paths of the node's `labelled-by` targets, read only for unnamed nodes a
    /// person acts on (`names::wants_label`).
    pub(super) labelled_by: Vec<String>,
}

/// The extras of one node: each is one call, made only when the node has the interface and
/// (for frames) is showing; GTK action lists known by role cost nothing.
pub(super) async fn extras(calls: &Calls<'_>, bus: &str, item: &Item, gtk: bool) -> Extras {
    let obj = ObjRef::new(bus, &item.path);
    let native = roles::native_name(item.role);
    let want_frame = item.ifaces.component && has(item.states, bit::SHOWING);
    let want_value = item.ifaces.value;
    // A spin button is editable text and a Value: its number is the value.
    let want_text = item.ifaces.editable_text
        && item.ifaces.text
        && !item.ifaces.value
        && native != "password text";
    let known_actions = if gtk {
        action_names::gtk_actions(native)
    } else {
        None
    };
    let want_actions = item.ifaces.action && known_actions.is_none();
    let frame = async {
        if !want_frame {
            return None;
        }
        let (x, y, w, h): (i32, i32, i32, i32) = calls
            .call(&obj, COMPONENT, "GetExtents", &(SCREEN,))
            .await
            .ok()?;
        frame_of(x, y, w, h)
    };
    let value = async {
        if !want_value {
            return None;
        }
        calls.all_props(&obj, VALUE).await.ok()
    };
    let text = async {
        if !want_text {
            return None;
        }
        calls
            .call::<_, String>(&obj, TEXT, "GetText", &(0i32, -1i32))
            .await
            .ok()
    };
    let actions = async {
        if !want_actions {
            return Vec::new();
        }
        calls
            .call::<_, Vec<(String, String, String)>>(&obj, ACTION, "GetActions", &())
            .await
            .map(|list| list.into_iter().map(|(name, _, _)| name).collect())
            .unwrap_or_default()
    };
    let labelled_by = async {
        if !names::wants_label(item) {
            return Vec::new();
        }
        names::label_paths(calls, bus, item).await
    };
    let (frame, value, text, actions, labelled_by) =
        futures::join!(frame, value, text, actions, labelled_by);
    let mut out = Extras {
        frame,
        labelled_by,
        actions: match (item.ifaces.action, known_actions) {
            (true, Some(known)) => known.iter().map(|s| (*s).to_owned()).collect(),
            _ => actions,
        },
        ..Extras::default()
    };
    if let Some(props) = value {
        out.value = take::<f64>(&props, "CurrentValue").map(AxValue::Number);
        out.min = take::<f64>(&props, "MinimumValue");
        out.max = take::<f64>(&props, "MaximumValue");
    }
    if let Some(text) = text {
        out.value = Some(AxValue::Text(text));
    }
    out
}

/// A frame from extents; `None` for the placeholders GTK reports for unmapped widgets.
pub(super) fn frame_of(x: i32, y: i32, w: i32, h: i32) -> Option<Rect> {
    (w > 0 && h > 0 && x > i32::MIN / 2 && y > i32::MIN / 2).then(|| Rect {
        x: f64::from(x),
        y: f64::from(y),
        w: f64::from(w),
        h: f64::from(h),
    })
}

/// Extras of many nodes, concurrently, in the order given.
pub(super) async fn all_extras(
    calls: &Calls<'_>,
    bus: &str,
    items: &[&Item],
    gtk: bool,
) -> Vec<Extras> {
    futures::stream::iter(items.iter().copied())
        .map(|item| extras(calls, bus, item, gtk))
        .buffered(CONCURRENCY)
        .collect()
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_join_two_words() {
        assert_eq!(state_bits(&[1, 2]), 1 | (2 << 32));
        assert_eq!(state_bits(&[]), 0);
    }

    #[test]
    fn placeholder_extents_are_no_frame() {
        assert_eq!(frame_of(-2147483648, -2147483648, -1, -1), None);
        assert_eq!(frame_of(0, 0, 0, 10), None);
        assert_eq!(
            frame_of(10, 20, 30, 40),
            Some(Rect {
                x: 10.0,
                y: 20.0,
                w: 30.0,
                h: 40.0
            })
        );
    }
}
