//! Semantic operations on one element: actions (`Action.DoAction`), value writes
//! (`EditableText.SetTextContents`, `Value.CurrentValue`, toggles by pressing), keyboard
//! focus (`Component.GrabFocus`), selection (the parent's `Selection.SelectChild`), and
//! hit testing. Each reads what it needs first, so disabled elements and missing actions
//! fail early with what the element does offer; the engine verifies every effect.

use atspi::zbus::zvariant::OwnedObjectPath;

use axgate_engine::{AxError, AxValue, Role};

use super::Op;
use super::action_names;
use super::apps::AppEntry;
use super::assemble::Ifaces;
use super::dbus::{
    ACCESSIBLE, ACTION, COMPONENT, Calls, EDITABLE_TEXT, Fail, ROOT_PATH, SCREEN, SELECTION, TEXT,
    VALUE,
};
use super::ids::ObjRef;
use super::roles;
use super::states::{self, bit, has};

/// What an operation reads about its element before acting.
pub(super) struct Facts {
    pub(super) role: u32,
    pub(super) states: u64,
    pub(super) ifaces: Ifaces,
}

impl Facts {
    pub(super) fn native(&self) -> &'static str {
        roles::native_name(self.role)
    }

    pub(super) fn normalised(&self) -> Role {
        roles::normalise(self.role, has(self.states, bit::MULTI_LINE))
    }
}

impl Op<'_> {
    fn fail(&self, f: Fail) -> AxError {
        f.into_ax(
            self.app.pid,
            &format!("element {} of {}", self.obj.path, self.app.name),
        )
    }

    /// Role, states and interfaces (three calls, concurrently).
    pub(super) async fn facts(&self) -> Result<Facts, AxError> {
        let c = self.calls;
        let (role, state, ifaces) = futures::join!(
            c.call::<_, u32>(&self.obj, ACCESSIBLE, "GetRole", &()),
            c.call::<_, Vec<u32>>(&self.obj, ACCESSIBLE, "GetState", &()),
            c.call::<_, Vec<String>>(&self.obj, ACCESSIBLE, "GetInterfaces", &()),
        );
        let state = state.map_err(|f| self.fail(f))?;
        Ok(Facts {
            role: role.map_err(|f| self.fail(f))?,
            states: u64::from(state.first().copied().unwrap_or(0))
                | (u64::from(state.get(1).copied().unwrap_or(0)) << 32),
            ifaces: Ifaces::from_names(
                ifaces.map_err(|f| self.fail(f))?.iter().map(String::as_str),
            ),
        })
    }

    /// `push button "Save"`, for messages.
    async fn describe(&self, facts: &Facts) -> String {
        let name = self
            .calls
            .prop::<String>(&self.obj, ACCESSIBLE, "Name")
            .await
            .unwrap_or_default();
        if name.is_empty() {
            facts.native().to_owned()
        } else {
            format!("{} {name:?}", facts.native())
        }
    }

    async fn native_actions(&self) -> Result<Vec<String>, AxError> {
        let list: Vec<(String, String, String)> = self
            .calls
            .call(&self.obj, ACTION, "GetActions", &())
            .await
            .map_err(|f| self.fail(f))?;
        Ok(list.into_iter().map(|(n, _, _)| n).collect())
    }

    async fn check_enabled(&self, facts: &Facts) -> Result<(), AxError> {
        if has(facts.states, bit::ENABLED) || has(facts.states, bit::SENSITIVE) {
            return Ok(());
        }
        Err(AxError::Disabled {
            element: self.describe(facts).await,
        })
    }

    /// Runs the native action behind a normalised name.
    pub(super) async fn perform_action(&self, action: &str) -> Result<(), AxError> {
        let facts = self.facts().await?;
        self.check_enabled(&facts).await?;
        let natives = if facts.ifaces.action {
            self.native_actions().await?
        } else {
            Vec::new()
        };
        let Some(index) = action_names::native_index(facts.native(), &natives, action) else {
            return Err(AxError::UnsupportedAction {
                element: self.describe(&facts).await,
                action: action.to_owned(),
                available: action_names::normalise_all(facts.native(), &natives),
            });
        };
        self.do_action(index).await
    }

    async fn do_action(&self, index: usize) -> Result<(), AxError> {
        let done: bool = self
            .calls
            .call(&self.obj, ACTION, "DoAction", &(index as i32,))
            .await
            .map_err(|f| self.fail(f))?;
        if done {
            Ok(())
        } else {
            Err(AxError::Backend(format!(
                "element {} of {} refused its action",
                self.obj.path, self.app.name
            )))
        }
    }

    /// Writes a value: text through EditableText, numbers through Value, booleans by
    /// pressing a toggle whose state differs.
    pub(super) async fn set_value(&self, value: &AxValue) -> Result<(), AxError> {
        let facts = self.facts().await?;
        self.check_enabled(&facts).await?;
        let refused = |what: String| AxError::InvalidValue {
            element: what,
            reason: "the app rejected the value".to_owned(),
        };
        match value {
            AxValue::Bool(want) => {
                if states::toggle_value(facts.states) == *want {
                    return Ok(());
                }
                let natives = self.native_actions().await?;
                match action_names::native_index(facts.native(), &natives, "press") {
                    Some(i) => self.do_action(i).await,
                    None => Err(AxError::NotSettable {
                        element: self.describe(&facts).await,
                    }),
                }
            }
            AxValue::Number(n) if facts.ifaces.value => self
                .calls
                .set_prop(&self.obj, VALUE, "CurrentValue", *n)
                .await
                .map_err(|f| self.fail(f)),
            AxValue::Text(s) if facts.ifaces.value && s.trim().parse::<f64>().is_ok() => {
                let n = s.trim().parse::<f64>().unwrap_or_default();
                self.calls
                    .set_prop(&self.obj, VALUE, "CurrentValue", n)
                    .await
                    .map_err(|f| self.fail(f))
            }
            other if facts.ifaces.editable_text => {
                let text = other.to_string();
                let ok: bool = self
                    .calls
                    .call(
                        &self.obj,
                        EDITABLE_TEXT,
                        "SetTextContents",
                        &(text.as_str(),),
                    )
                    .await
                    .map_err(|f| self.fail(f))?;
                if !ok {
                    return Err(refused(self.describe(&facts).await));
                }
                // The caret goes after the text, as a value write leaves it on macOS and in
                // the demo: GTK leaves it where it was (0 in a field that was empty), and a
                // Backspace pressed next deleted nothing.
                let end = i32::try_from(text.chars().count()).unwrap_or(i32::MAX);
                let _ = self
                    .calls
                    .call::<_, bool>(&self.obj, TEXT, "SetCaretOffset", &(end,))
                    .await;
                Ok(())
            }
            AxValue::Text(s) if facts.ifaces.value => match s.trim().parse::<f64>() {
                Ok(n) => self
                    .calls
                    .set_prop(&self.obj, VALUE, "CurrentValue", n)
                    .await
                    .map_err(|f| self.fail(f)),
                Err(_) => Err(AxError::InvalidValue {
                    element: self.describe(&facts).await,
                    reason: format!("{s:?} is not a number"),
                }),
            },
            _ => Err(AxError::NotSettable {
                element: self.describe(&facts).await,
            }),
        }
    }

    /// Moves keyboard focus to the element (GTK raises its window too). Windows, which GTK
    /// does not let take focus themselves, are raised through X11.
    pub(super) async fn focus(&self) -> Result<(), AxError> {
        let facts = self.facts().await?;
        if roles::is_window(facts.normalised()) {
            return self.raise_window(&facts).await;
        }
        if facts.normalised() == Role::Application {
            return Ok(());
        }
        if self.grab_focus().await? {
            if facts.ifaces.text && has(facts.states, bit::EDITABLE) {
                // GTK selects all of an entry's text when it takes focus; put the caret at
                // the end instead, as a click after the text would.
                let end = self
                    .calls
                    .prop::<i32>(&self.obj, TEXT, "CharacterCount")
                    .await
                    .unwrap_or(-1);
                if end >= 0 {
                    let _ = self
                        .calls
                        .call::<_, bool>(&self.obj, TEXT, "SetCaretOffset", &(end,))
                        .await;
                }
            }
            return Ok(());
        }
        Err(AxError::Unsupported(format!(
            "{} cannot take keyboard focus; focus a text field, control or window instead",
            self.describe(&facts).await
        )))
    }

    /// `Component.GrabFocus`; whether the app took it.
    pub(super) async fn grab_focus(&self) -> Result<bool, AxError> {
        self.calls
            .call::<_, bool>(&self.obj, COMPONENT, "GrabFocus", &())
            .await
            .map_err(|f| self.fail(f))
    }

    async fn raise_window(&self, facts: &Facts) -> Result<(), AxError> {
        let title = self
            .calls
            .prop::<String>(&self.obj, ACCESSIBLE, "Name")
            .await
            .unwrap_or_default();
        let _ = facts;
        super::windows::x11_raise(self.app.pid, Some(&title), None).map(drop)
    }

    /// Selects the element: tabs, radios and menu items are pressed; other items are
    /// selected through their parent's Selection interface.
    pub(super) async fn select(&self) -> Result<(), AxError> {
        let facts = self.facts().await?;
        self.check_enabled(&facts).await?;
        let role = facts.normalised();
        let natives = if facts.ifaces.action {
            self.native_actions().await?
        } else {
            Vec::new()
        };
        let press = action_names::native_index(facts.native(), &natives, "press");
        if matches!(
            role,
            Role::Tab | Role::RadioButton | Role::MenuItem | Role::MenuBarItem
        ) && let Some(i) = press
        {
            return self.do_action(i).await;
        }
        if has(facts.states, bit::SELECTED) {
            return Ok(());
        }
        let parent: atspi::ObjectRefOwned = self
            .calls
            .prop(&self.obj, ACCESSIBLE, "Parent")
            .await
            .map_err(|f| self.fail(f))?;
        let index: i32 = self
            .calls
            .call(&self.obj, ACCESSIBLE, "GetIndexInParent", &())
            .await
            .map_err(|f| self.fail(f))?;
        let parent = ObjRef::new(
            parent.name_as_str().unwrap_or(&self.obj.bus),
            parent.path_as_str(),
        );
        let selected = self
            .calls
            .call::<_, bool>(&parent, SELECTION, "SelectChild", &(index,))
            .await;
        match (selected, press) {
            (Ok(true), _) => Ok(()),
            (_, Some(i)) => self.do_action(i).await,
            _ => Err(AxError::Unsupported(format!(
                "{} cannot be selected; press or click it instead",
                self.describe(&facts).await
            ))),
        }
    }
}

/// The deepest element of `app` at a screen point: the top-most window containing it, then
/// `GetAccessibleAtPoint` down the tree.
pub(super) async fn element_at(
    calls: &Calls<'_>,
    app: &AppEntry,
    point: (f64, f64),
) -> Result<Option<ObjRef>, AxError> {
    let (x, y) = (point.0.round() as i32, point.1.round() as i32);
    let root = ObjRef::new(&app.bus, ROOT_PATH);
    let windows = super::read::children(calls, &root, 64)
        .await
        .map_err(|f| f.into_ax(app.pid, &app.name))?;
    // Without a window manager the last window opened is on top.
    for path in windows.iter().rev() {
        let window = ObjRef::new(&app.bus, path);
        let inside: bool = calls
            .call(&window, COMPONENT, "Contains", &(x, y, SCREEN))
            .await
            .unwrap_or(false);
        let showing = calls
            .call::<_, Vec<u32>>(&window, ACCESSIBLE, "GetState", &())
            .await
            .map(|s| has(u64::from(s.first().copied().unwrap_or(0)), bit::SHOWING))
            .unwrap_or(false);
        if !inside || !showing {
            continue;
        }
        let mut here = window;
        for _ in 0..64 {
            let next: Result<(String, OwnedObjectPath), _> = calls
                .call(&here, COMPONENT, "GetAccessibleAtPoint", &(x, y, SCREEN))
                .await;
            match next {
                Ok((bus, p))
                    if bus == *app.bus
                        && p.as_str() != "/org/a11y/atspi/null"
                        && p.as_str() != &*here.path =>
                {
                    here = ObjRef::new(&bus, p.as_str());
                }
                _ => break,
            }
        }
        return Ok(Some(here));
    }
    Ok(None)
}
