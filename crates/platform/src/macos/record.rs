//! `axgate record` on macOS: the [`RecordSource`] over live `AXUIElement`s. One batched read
//! per element (`writer::record_attrs` and `AXChildren`), its action names, and whether its
//! value is settable; a secure field's secret slots are never converted (dropped at the
//! source). Everything else (the walk, bounds, references, the JSON) is the platform-neutral
//! `replay::writer`.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use core_foundation::array::CFArray;
use core_foundation::string::CFString;

use axgate_engine::CallCtx;

use super::element::AxElement;
use super::{apps, attrs, chromium};
use crate::mac_logic::decode::AttrValue;
use crate::replay::writer::{
    self, AppMeta, Bounds, RecValue, RecordRead, RecordSource, SECRET_ATTRS, Summary,
};

struct LiveSource {
    names: Vec<&'static str>,
    /// `names` followed by `AXChildren`.
    cf_names: CFArray<CFString>,
    ctx: RefCell<CallCtx>,
}

impl RecordSource for LiveSource {
    type Element = AxElement;

    fn read(&self, element: &AxElement) -> Result<RecordRead<AxElement>, String> {
        let ctx = &mut *self.ctx.borrow_mut();
        let mut raw = attrs::read_raw(element, &self.cf_names, ctx)
            .map_err(|f| format!("an element could not be read ({f:?})"))?;
        let children = raw
            .pop()
            .flatten()
            .and_then(|v| v.downcast::<CFArray>())
            .map_or_else(Vec::new, |array| attrs::elements_of(&array));
        let text_of = |name: &str| {
            let i = self.names.iter().position(|n| *n == name)?;
            match raw.get(i)?.as_ref().map(attrs::convert) {
                Some(AttrValue::Text(t)) => Some((name.to_owned(), RecValue::Text(t))),
                _ => None,
            }
        };
        let identity: Vec<(String, RecValue<AxElement>)> = ["AXRole", "AXSubrole"]
            .into_iter()
            .filter_map(text_of)
            .collect();
        let secure = writer::is_secure(&identity);
        let mut attributes = Vec::with_capacity(self.names.len());
        for (name, slot) in self.names.iter().zip(&raw) {
            if secure && SECRET_ATTRS.contains(name) {
                continue;
            }
            let Some(value) = slot else { continue };
            if let Some(e) = attrs::element_of(value) {
                attributes.push(((*name).to_owned(), RecValue::Element(e)));
                continue;
            }
            if let Some(array) = value.downcast::<CFArray>() {
                let elements = attrs::elements_of(&array);
                if !elements.is_empty() {
                    attributes.push(((*name).to_owned(), RecValue::List(elements)));
                }
                continue;
            }
            // References and arrays were taken above; other types the format does not keep.
            let Some(recorded) = attrs::convert(value).map_refs(|()| None, |_| None) else {
                continue;
            };
            if matches!(recorded, RecValue::Other) {
                continue;
            }
            attributes.push(((*name).to_owned(), recorded));
        }
        let actions = attrs::action_names(element, ctx).unwrap_or_default();
        let has_value = attributes.iter().any(|(n, _)| n == "AXValue");
        let settable = if has_value && attrs::is_settable(element, "AXValue", ctx).unwrap_or(false)
        {
            vec!["AXValue".to_owned()]
        } else {
            Vec::new()
        };
        Ok(RecordRead {
            attributes,
            actions,
            settable,
            children,
        })
    }
}

/// Records the running app named by `app` (name, bundle id or pid).
pub(crate) fn record(
    app: &str,
    max_nodes: usize,
    time: Duration,
) -> Result<(serde_json::Value, Summary), String> {
    let wanted = app.trim();
    let running = apps::running();
    let found: Vec<_> = running
        .iter()
        .filter(|r| {
            r.info.name.eq_ignore_ascii_case(wanted)
                || r.info.bundle_id.as_deref() == Some(wanted)
                || r.info.pid.to_string() == wanted
        })
        .collect();
    let target = match found.as_slice() {
        [one] => &one.info,
        [] => {
            return Err(format!(
                "no running app is called {wanted:?}; give its name, bundle id or pid as `axgate apps` lists them"
            ));
        }
        _ => {
            return Err(format!(
                "{wanted:?} matches {} apps; give its pid",
                found.len()
            ));
        }
    };
    let deadline = Instant::now() + time;
    let mut ctx = CallCtx::new(deadline);
    // Chromium and Electron build their tree only once asked.
    chromium::prepare(target.pid, &[], &mut ctx);
    let root = apps::app_element(target.pid).map_err(|e| e.to_string())?;
    let names = writer::record_attrs();
    let mut with_children = names.clone();
    with_children.push(attrs::CHILDREN);
    let source = LiveSource {
        cf_names: attrs::names(&with_children),
        names,
        ctx: RefCell::new(ctx),
    };
    let meta = AppMeta {
        name: target.name.clone(),
        bundle_id: target.bundle_id.clone(),
        pid: target.pid,
    };
    writer::record(
        &source,
        root,
        meta,
        os_version(),
        Bounds {
            max_nodes,
            deadline,
        },
    )
}

/// `macOS 15.5`, from `sw_vers`.
fn os_version() -> Option<String> {
    let out = std::process::Command::new("/usr/bin/sw_vers")
        .arg("-productVersion")
        .output()
        .ok()?;
    let version = String::from_utf8(out.stdout).ok()?;
    let version = version.trim();
    (!version.is_empty()).then(|| format!("macOS {version}"))
}
