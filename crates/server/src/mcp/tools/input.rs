//! Value and input tools: `set_value` (coerced, clamped, read back), `type_text`,
//! `press_key`, `scroll` and `drag`. Synthetic input is machine-wide, so it all goes
//! through the engine's input lock. Typed text never reaches a log or a result; a
//! `secret: NAME` is resolved and masked by `secret_arg`.

use std::time::Duration;

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::app_arg::App;
use super::receivers::{Receiver, key_receivers, pointer_receiver};
use super::secret_arg::{self, Given, one_of};
use super::target::{Located, VERIFY_WAIT, acted, locate_for_write, observe, open_app};
use super::{Profile, ToolDef, ToolResult};
use crate::mcp::confirm::{activates_nothing, decide};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::ActSummary;
use crate::secrets::Secret;
use axgate_engine::act::act_and_observe;
use axgate_engine::backend::{Gesture, Pointer};
use axgate_engine::keys::{KeyCombo, Modifiers};
use axgate_engine::values::{coerce, matches};
use axgate_engine::{AxError, AxValue, Target};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SetValueArgs {
    app: App,
    /// The element (path or handle).
    target: String,
    /// Converted to the element's type and clamped to its range.
    #[serde(default)]
    #[schemars(with = "Option<super::schema::Scalar>")]
    value: Option<Value>,
    // Instead of `value`: a secret's name (no description: the tool list has a byte budget,
    // and docs/TOOLS.md says it).
    #[serde(default)]
    secret: Option<String>,
}

async fn set_value(ctx: &ToolCtx, args: SetValueArgs) -> ToolResult {
    let secret = match one_of("set_value", "value", args.value, args.secret)? {
        Given::Plain(value) => return set_plain(ctx, &args.app, &args.target, value).await,
        Given::Secret(name) => secret_arg::resolve(ctx, &name)?,
    };
    let located = locate_for_write(ctx, &args.app, &args.target).await?;
    secret_arg::check_receiver(ctx, &located)?;
    let node = &located.element.node;
    if !node.states.value_settable {
        return Err(AxError::NotSettable {
            element: located.label(),
        }
        .into());
    }
    // The reason a value does not fit quotes it: withheld.
    let value = coerce(node, AxValue::Text(secret.expose().to_owned())).map_err(|_| {
        AxError::InvalidValue {
            element: located.label(),
            reason: "the secret does not fit this element (it takes no text)".into(),
        }
    })?;
    activates_nothing(ctx);
    let changes = write_value(ctx, &located, value, VERIFY_WAIT).await?;
    // A secure field cannot be read back; a plain one the policy allowed is read back in the
    // result, masked.
    let result = acted(ctx, &located, "set_value", changes, None).await;
    Ok(secret_arg::masked(ctx, &secret, result))
}

pub(super) static SET_VALUE: ToolDef = ToolDef {
    name: "set_value",
    title: "Set an element's value",
    description: "Sets a field's text, a check box's state or a slider's number, and reads it back.",
    profile: Profile::ACT.idempotent(true),
    io: typed!(set_value, SetValueArgs, ActSummary),
};

/// `set_value` with the caller's own value.
async fn set_plain(
    ctx: &ToolCtx,
    app: &str,
    target: &str,
    value: Value,
) -> Result<CallToolResult, ToolError> {
    let given = match value {
        Value::String(s) => AxValue::Text(s),
        Value::Bool(b) => AxValue::Bool(b),
        Value::Number(n) => AxValue::Number(n.as_f64().unwrap_or(f64::NAN)),
        other => {
            return Err(ToolError::Usage(format!(
                "invalid argument `value`: expected a string, boolean or number, found {other}"
            )));
        }
    };
    let located = locate_for_write(ctx, app, target).await?;
    let node = &located.element.node;
    if !node.states.value_settable {
        return Err(AxError::NotSettable {
            element: located.label(),
        }
        .into());
    }
    let value = coerce(node, given).map_err(|reason| AxError::InvalidValue {
        element: located.label(),
        reason,
    })?;
    // A field that already holds the value will show no change: the write is still made
    // (and read back), but waiting for an effect that cannot come would only cost time.
    let holds = !node.states.secure && matches(&value, node.value.as_ref());
    // Writing a check box's state clicks it ("Erase data on quit"); writing text or a number
    // activates nothing.
    if matches!(value, AxValue::Bool(_)) {
        let receiver = (node.clone(), located.element.path.to_string());
        decide(ctx, &located.conn.app.name, "tick or untick", &[receiver]).await?;
    } else {
        activates_nothing(ctx);
    }
    let wait = if holds { Duration::ZERO } else { VERIFY_WAIT };
    let changes = write_value(ctx, &located, value.clone(), wait).await?;
    let after = located
        .conn
        .resolve(
            &ctx.engine,
            &Target::Path(located.element.path.clone()),
            &ctx.stats,
        )
        .await?;
    // A secure field cannot be read back (backends mask it): its write cannot be verified,
    // and the result says so (`verified` is false unless something else visibly changed).
    let unverifiable = after.node.states.secure;
    if !unverifiable && !matches(&value, after.node.value.as_ref()) {
        let secure = after.node.states.secure;
        let show = |v: Option<&AxValue>| match (secure, v) {
            (true, _) => "•••".to_owned(),
            (false, Some(v)) => format!("{:?}", v.to_string()),
            (false, None) => "nothing".to_owned(),
        };
        return Err(AxError::NotApplied {
            element: located.label(),
            expected: show(Some(&value)),
            actual: show(after.node.value.as_ref()),
        }
        .into());
    }
    Ok(acted(ctx, &located, "set_value", changes, None).await)
}

/// Writes `value` and returns the changes seen within `wait`.
async fn write_value(
    ctx: &ToolCtx,
    located: &Located,
    value: AxValue,
    wait: Duration,
) -> Result<Vec<axgate_engine::diff::Change>, ToolError> {
    let scope = located.scope(ctx).await?;
    let app = located.conn.app.clone();
    let (pid, id) = (app.pid, located.element.node.id);
    let write = || {
        ctx.engine.run(&app, &ctx.stats, "set_value", move |b, c| {
            b.set_value(pid, id, &value, c)
        })
    };
    Ok(act_and_observe(&ctx.engine, &app, &scope, &ctx.stats, wait, write).await?)
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct TypeArgs {
    app: App,
    /// Default: the focused element.
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    text: Option<String>,
    // Instead of `text`: a secret's name (see `SetValueArgs::secret`).
    #[serde(default)]
    secret: Option<String>,
    #[serde(default)]
    clear_first: bool,
}

async fn type_text(ctx: &ToolCtx, args: TypeArgs) -> ToolResult {
    let (plain, secret) = match one_of("type_text", "text", args.text, args.secret)? {
        Given::Plain(text) => (text, None),
        Given::Secret(name) => (
            String::new(),
            Some(typable(&name, secret_arg::resolve(ctx, &name)?)?),
        ),
    };
    let located = focused_or(ctx, &args.app, args.target.as_deref()).await?;
    // Decided on the element that will receive the keys: the target, once focused, or
    // whatever has the focus.
    if secret.is_some() {
        secret_arg::check_receiver(ctx, &located)?;
    }
    if args.clear_first {
        if located.element.node.states.value_settable {
            write_value(ctx, &located, AxValue::Text(String::new()), VERIFY_WAIT).await?;
        } else {
            press(
                ctx,
                &located,
                KeyCombo::parse("cmd+a", &[]).map_err(ToolError::Usage)?,
            )
            .await?;
            press(
                ctx,
                &located,
                KeyCombo::parse("backspace", &[]).map_err(ToolError::Usage)?,
            )
            .await?;
        }
    }
    let scope = located.scope(ctx).await?;
    let app = located.conn.app.clone();
    let pid = app.pid;
    // A Tab moves focus, so what a later Space or Return presses is only known once the text
    // before it is typed: each run up to a Tab is decided on, then typed.
    let mut changes = Vec::new();
    let text = match &secret {
        Some(secret) => secret.expose(),
        None => plain.as_str(),
    };
    for (i, run) in runs(text).into_iter().enumerate() {
        let here = if i == 0 {
            None
        } else {
            focused_now(ctx, &located).await?
        };
        let receivers = typing_receivers(ctx, here.as_ref().unwrap_or(&located), run).await?;
        decide(ctx, &app.name, "type a key that presses", &receivers).await?;
        let text = run.to_owned();
        changes.extend(
            observe(ctx, &app, &scope, || async {
                let _input = ctx.engine.input_lock().await;
                let text = text.clone();
                ctx.engine
                    .run(&app, &ctx.stats, "type_text", move |b, c| {
                        b.type_text(pid, &text, c)
                    })
                    .await
            })
            .await?,
        );
    }
    let result = acted(ctx, &located, "type_text", changes, None).await;
    Ok(match &secret {
        Some(secret) => secret_arg::masked(ctx, secret, result),
        None => result,
    })
}

pub(super) static TYPE_TEXT: ToolDef = ToolDef {
    name: "type_text",
    title: "Type text",
    description: "Types text as key presses into an element or the focused element.",
    profile: Profile::ACT,
    io: typed!(type_text, TypeArgs, ActSummary),
};

/// A secret to type: no control characters, which would move the focus (Tab) or press a
/// button (Return) somewhere the receiver check never looked.
fn typable(name: &str, secret: Secret) -> Result<Secret, ToolError> {
    if secret.expose().chars().any(char::is_control) {
        return Err(ToolError::Usage(format!(
            "the secret {name} holds a control character (Tab, Return, …), which would move \
             the focus or press a button; type it with set_value, or store it without"
        )));
    }
    Ok(secret)
}

/// `text` cut after each Tab (at least one run, possibly empty).
fn runs(text: &str) -> Vec<&str> {
    let mut runs: Vec<&str> = text.split_inclusive('\t').collect();
    if runs.is_empty() {
        runs.push(text);
    }
    runs
}

/// The focused element of `located`'s app now, if any.
async fn focused_now(ctx: &ToolCtx, located: &Located) -> Result<Option<Located>, ToolError> {
    let conn = located.conn.clone();
    Ok(super::query::focused(ctx, &conn)
        .await?
        .map(|element| Located { conn, element }))
}

/// What the Spaces and Returns of a run of typed text would press.
async fn typing_receivers(
    ctx: &ToolCtx,
    located: &Located,
    run: &str,
) -> Result<Vec<Receiver>, ToolError> {
    let mut receivers = Vec::new();
    for (present, key) in [
        (run.contains(' '), "space"),
        (run.contains(['\n', '\r']), "return"),
    ] {
        if present {
            let combo = KeyCombo::parse(key, &[]).map_err(ToolError::Usage)?;
            receivers.extend(key_receivers(ctx, located, &combo).await?);
        }
    }
    Ok(receivers)
}

/// Focuses `target` (when given and not focused yet) or finds the focused element.
async fn focused_or(ctx: &ToolCtx, app: &str, target: Option<&str>) -> Result<Located, ToolError> {
    if let Some(target) = target {
        let located = locate_for_write(ctx, app, target).await?;
        if !located.element.node.states.focused {
            let app = located.conn.app.clone();
            let (pid, id) = (app.pid, located.element.node.id);
            ctx.engine
                .run(&app, &ctx.stats, "focus", move |b, c| b.focus(pid, id, c))
                .await?;
        }
        return Ok(located);
    }
    let conn = open_app(ctx, app).await?;
    ctx.engine.check_write(&conn.app, &ctx.session.owner)?;
    let element = super::query::focused(ctx, &conn).await?.ok_or_else(|| {
        ToolError::Usage(
            "nothing is focused in the app: give `target` to focus an element first".into(),
        )
    })?;
    Ok(Located { conn, element })
}

async fn press(ctx: &ToolCtx, located: &Located, combo: KeyCombo) -> Result<(), ToolError> {
    let app = located.conn.app.clone();
    let pid = app.pid;
    let _input = ctx.engine.input_lock().await;
    ctx.engine
        .run(&app, &ctx.stats, "press_key", move |b, c| {
            b.press_key(pid, combo, c)
        })
        .await?;
    Ok(())
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct KeyArgs {
    app: App,
    /// A key (`a`, `return`, `tab`, `escape`, `up`, `page_down`, `f1`…) or a combo such as
    /// `cmd+shift+s`.
    key: String,
    /// Any of `cmd`, `ctrl`, `opt`, `shift`.
    #[serde(default)]
    modifiers: Vec<String>,
    /// Focus this element first; default: the focused one.
    #[serde(default)]
    target: Option<String>,
}

async fn press_key(ctx: &ToolCtx, args: KeyArgs) -> ToolResult {
    let combo = KeyCombo::parse(&args.key, &args.modifiers)
        .map_err(|e| ToolError::Usage(format!("invalid argument `key`: {e}")))?;
    let located = focused_or(ctx, &args.app, args.target.as_deref()).await?;
    let receivers = key_receivers(ctx, &located, &combo).await?;
    let verb = format!("press the key {combo}, which presses");
    decide(ctx, &located.conn.app.name, &verb, &receivers).await?;
    let scope = axgate_engine::act::Reach::app();
    let app = located.conn.app.clone();
    let changes = observe(ctx, &app, &scope, || async {
        press(ctx, &located, combo).await.map_err(|e| match e {
            ToolError::Ax(e) => e,
            ToolError::Usage(m) | ToolError::Refused(m) | ToolError::WaitTimeout(m) => {
                AxError::Unsupported(m)
            }
            e @ ToolError::InputRequired => AxError::Unsupported(e.to_string()),
        })
    })
    .await?;
    Ok(acted(ctx, &located, "press_key", changes, None).await)
}

pub(super) static PRESS_KEY: ToolDef = ToolDef {
    name: "press_key",
    title: "Press a key",
    description: "Presses a key or combo such as `cmd+s`.",
    profile: Profile::ACT,
    io: typed!(press_key, KeyArgs, ActSummary),
};

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Direction {
    Up,
    Down,
    Left,
    Right,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ScrollArgs {
    app: App,
    /// The element to scroll (a scroll area or anything inside one).
    target: String,
    direction: Direction,
    /// Lines to scroll (default 3, at most 100).
    #[serde(default)]
    amount: Option<u32>,
    // Keys held, as `click`'s (no description: the tool list has a byte budget; docs/TOOLS.md).
    #[serde(default)]
    modifiers: Option<Vec<String>>,
}

async fn scroll(ctx: &ToolCtx, args: ScrollArgs) -> ToolResult {
    let amount = f64::from(args.amount.unwrap_or(3).clamp(1, 100));
    let delta = match args.direction {
        Direction::Up => (0.0, -amount),
        Direction::Down => (0.0, amount),
        Direction::Left => (-amount, 0.0),
        Direction::Right => (amount, 0.0),
    };
    let located = locate_for_write(ctx, &args.app, &args.target).await?;
    let point = center(&located)?;
    activates_nothing(ctx);
    let held = held_keys(args.modifiers.as_deref())?;
    let act = Pointer::new(point, Gesture::Scroll { delta }).holding(held);
    pointer_act(ctx, &located, act).await
}

pub(super) static SCROLL: ToolDef = ToolDef {
    name: "scroll",
    title: "Scroll",
    description: "Scrolls an element with the pointer wheel.",
    profile: Profile::ACT,
    io: typed!(scroll, ScrollArgs, ActSummary),
};

/// The keys a pointer gesture holds (`modifiers`, the words of `press_key`).
pub(super) fn held_keys(names: Option<&[String]>) -> Result<Modifiers, ToolError> {
    Modifiers::parse(names.unwrap_or_default().iter().map(String::as_str))
        .map_err(|e| ToolError::Usage(format!("invalid argument `modifiers`: {e}")))
}

/// A pointer gesture on the located element's app: under the machine-wide input lock,
/// verified by the changes it causes.
async fn pointer_act(
    ctx: &ToolCtx,
    located: &Located,
    act: Pointer,
) -> Result<CallToolResult, ToolError> {
    let scope = located.scope(ctx).await?;
    let app = located.conn.app.clone();
    let (pid, op) = (app.pid, act.gesture.as_str());
    let changes = observe(ctx, &app, &scope, || async {
        let _input = ctx.engine.input_lock().await;
        ctx.engine
            .run(&app, &ctx.stats, op, move |b, c| b.pointer(pid, &act, c))
            .await
    })
    .await?;
    Ok(acted(ctx, located, op, changes, None).await)
}

fn center(located: &Located) -> Result<(f64, f64), ToolError> {
    located
        .element
        .node
        .frame
        .map(|f| f.center())
        .ok_or_else(|| {
            AxError::Unsupported(format!("{} has no frame on screen", located.label())).into()
        })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DragArgs {
    app: App,
    /// The element to drag from (its centre).
    from: String,
    /// The element to drop on (its centre); or give `to_x` and `to_y`.
    #[serde(default)]
    to: Option<String>,
    /// Drop x, global points.
    #[serde(default)]
    to_x: Option<f64>,
    /// Drop y, global points.
    #[serde(default)]
    to_y: Option<f64>,
    // Keys held, as `click`'s (no description: the tool list has a byte budget; docs/TOOLS.md).
    #[serde(default)]
    modifiers: Option<Vec<String>>,
}

async fn drag(ctx: &ToolCtx, args: DragArgs) -> ToolResult {
    let located = locate_for_write(ctx, &args.app, &args.from).await?;
    let from = center(&located)?;
    let mut receivers = Vec::new();
    let to = match (&args.to, args.to_x, args.to_y) {
        (Some(t), None, None) => {
            let target = locate_for_write(ctx, &args.app, t).await?;
            receivers.push((target.element.node.clone(), target.element.path.to_string()));
            center(&target)?
        }
        (None, Some(x), Some(y)) => (x, y),
        _ => {
            return Err(ToolError::Usage(
                "give either `to` (an element) or both `to_x` and `to_y`".into(),
            ));
        }
    };
    // A drop activates what lies under the drop point (a trash can, a "Delete" well), named
    // or not: it is decided like a click there.
    receivers.extend(pointer_receiver(ctx, &located.conn.app, to).await?);
    decide(ctx, &located.conn.app.name, "drop onto", &receivers).await?;
    let held = held_keys(args.modifiers.as_deref())?;
    pointer_act(
        ctx,
        &located,
        Pointer::new(from, Gesture::Drag { to }).holding(held),
    )
    .await
}

pub(super) static DRAG: ToolDef = ToolDef {
    name: "drag",
    title: "Drag",
    description: "Drags from an element to another element or a point.",
    profile: Profile::ACT.audit("from"),
    io: typed!(drag, DragArgs, ActSummary),
};
