//! Acting tools on one element: `perform_action`, `click` (with the actuation ladder) and
//! `focus`. Each checks the element first (exists, enabled, not leased by another session),
//! acts, waits for the effect, and returns the element afterwards plus the diff.

use schemars::JsonSchema;
use serde::Deserialize;

use std::time::Duration;

use super::app_arg::{App, TargetArgs};
use super::input::held_keys;
use super::receivers::pointer_receiver;
use super::target::{Located, Outcome, VERIFY_WAIT, acted, acted_as, locate_for_write, observe};
use super::{Profile, ToolDef, ToolResult};
use crate::mcp::confirm::{activates_nothing, decide};
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::ActSummary;
use axgate_engine::AxError;
use axgate_engine::backend::{Gesture, MAX_HOLD, MouseButton};
use axgate_engine::ladder::{Climb, Rung, climb, ladder, perform_rung};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ActionArgs {
    app: App,
    /// The element (path or handle).
    target: String,
    /// An action the element lists, such as `press` or `increment`.
    action: String,
}

async fn perform_action(ctx: &ToolCtx, args: ActionArgs) -> ToolResult {
    let located = locate_for_write(ctx, &args.app, &args.target).await?;
    let node = &located.element.node;
    if !node.actions.iter().any(|a| a == &args.action) {
        return Err(AxError::UnsupportedAction {
            element: located.label(),
            action: args.action,
            available: node.actions.clone(),
        }
        .into());
    }
    // Stepping, menus and raising activate nothing; every other action may.
    if !matches!(
        args.action.as_str(),
        "increment" | "decrement" | "show_menu" | "raise"
    ) {
        confirm_destructive(ctx, &located, &args.action, Vec::new()).await?;
    }
    let scope = located.scope(ctx).await?;
    let app = located.conn.app.clone();
    let id = node.id;
    let changes = observe(ctx, &app, &scope, || {
        ctx.engine
            .perform_action(&app, id, &args.action, &ctx.stats)
    })
    .await?;
    Ok(acted(ctx, &located, "perform_action", changes, None).await)
}

pub(super) static PERFORM_ACTION: ToolDef = ToolDef {
    name: "perform_action",
    title: "Perform an action on an element",
    description: "Performs an action the element lists (press, increment, show_menu, …).",
    profile: Profile::ACT,
    io: typed!(perform_action, ActionArgs, ActSummary),
};

/// The decision point for an act on `located` (and on the elements in `more`).
async fn confirm_destructive(
    ctx: &ToolCtx,
    located: &Located,
    verb: &str,
    mut more: Vec<super::receivers::Receiver>,
) -> Result<(), ToolError> {
    more.insert(
        0,
        (
            located.element.node.clone(),
            located.element.path.to_string(),
        ),
    );
    decide(ctx, &located.conn.app.name, verb, &more).await
}

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Button {
    #[default]
    Left,
    Right,
}

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Strategy {
    // Said in `ClickArgs::strategy` (variant docs would each become a schema branch).
    #[default]
    Auto,
    Action,
    Pointer,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ClickArgs {
    app: App,
    /// The element (path or handle).
    target: String,
    #[serde(default)]
    button: Button,
    /// 1, 2 or 0 (hover).
    #[serde(default)]
    count: Option<u32>,
    /// cmd/ctrl/opt/shift held.
    #[serde(default)]
    modifiers: Option<Vec<String>>,
    // A long press (at most 3000; no description: the byte budget, docs/TOOLS.md).
    #[serde(default)]
    hold_ms: Option<u64>,
    /// `auto` (default), `action` (press) or `pointer`.
    #[serde(default)]
    strategy: Strategy,
    /// If a rung shows no effect, try the next (may act twice).
    #[serde(default)]
    fallback: Option<bool>,
    // Fail without a visible effect instead of `verified: false` (no description: the tool
    // list has a byte budget, and the name says it; docs/TOOLS.md).
    #[serde(default)]
    require_effect: Option<bool>,
}

async fn click(ctx: &ToolCtx, args: ClickArgs) -> ToolResult {
    let fallback = args.fallback.unwrap_or(false);
    let require_effect = args.require_effect.unwrap_or(false);
    let count = args.count.unwrap_or(1);
    if !(0..=2).contains(&count) {
        return Err(ToolError::Usage(
            "invalid argument `count`: 1 or 2, or 0 to hover".into(),
        ));
    }
    let held = held_keys(args.modifiers.as_deref())?;
    let button = match args.button {
        Button::Left => MouseButton::Left,
        Button::Right => MouseButton::Right,
    };
    let gesture = match (count, args.hold_ms) {
        (0, None) => Gesture::Hover,
        (1, Some(ms)) if Duration::from_millis(ms) <= MAX_HOLD => Gesture::Press {
            button,
            hold: Duration::from_millis(ms),
        },
        (_, Some(_)) => {
            return Err(ToolError::Usage(format!(
                "invalid argument `hold_ms`: a long press is one press (count 1) held at most {} ms",
                MAX_HOLD.as_millis()
            )));
        }
        (count, None) => Gesture::Click { button, count },
    };
    let plain = held.is_empty() && matches!(gesture, Gesture::Click { .. });
    let located = locate_for_write(ctx, &args.app, &args.target).await?;
    let app = located.conn.app.clone();
    if gesture == Gesture::Hover {
        // Resting the pointer on an element presses nothing.
        activates_nothing(ctx);
    } else {
        // A pointer click lands on whatever is under the element's centre: decide on that too.
        let under = match (args.strategy, located.element.node.frame) {
            (Strategy::Action, _) | (_, None) => None,
            (_, Some(frame)) => pointer_receiver(ctx, &app, frame.center()).await?,
        };
        confirm_destructive(ctx, &located, "click", under.into_iter().collect()).await?;
    }
    let scope = located.scope(ctx).await?;
    let node = &located.element.node;
    let rungs: Vec<Rung> = match (args.strategy, args.button, count) {
        (Strategy::Pointer, _, _) => vec![Rung::Pointer],
        (Strategy::Action, _, _) if !plain => {
            return Err(ToolError::Usage(
                "held keys, hovering and long presses need the pointer (the press action \
                 carries no keys and cannot hold): use strategy auto or pointer"
                    .into(),
            ));
        }
        // The press action carries no keys and cannot hover or hold: the pointer does it.
        (Strategy::Auto, _, _) if !plain => vec![Rung::Pointer],
        (Strategy::Action, Button::Left, 1) => vec![Rung::Press],
        (Strategy::Action, _, _) => {
            return Err(ToolError::Usage(
                "right and double clicks need the pointer: use strategy auto or pointer".into(),
            ));
        }
        (Strategy::Auto, Button::Right, _) if node.actions.iter().any(|a| a == "show_menu") => {
            let id = node.id;
            let changes = observe(ctx, &app, &scope, || {
                ctx.engine.perform_action(&app, id, "show_menu", &ctx.stats)
            })
            .await?;
            return Ok(acted(ctx, &located, "click", changes, None).await);
        }
        (Strategy::Auto, Button::Left, 1) => ladder(&located.element),
        (Strategy::Auto, _, _) => vec![Rung::Pointer],
    };
    if rungs.is_empty() {
        return Err(AxError::Unsupported(format!(
            "{} offers no way to click it (no press action, no frame)",
            located.label()
        ))
        .into());
    }
    let mode = if fallback {
        Climb::Fallback
    } else {
        Climb::Once
    };
    let climbed = climb(
        &ctx.engine,
        &app,
        &scope,
        &ctx.stats,
        VERIFY_WAIT,
        &rungs,
        mode,
        |rung| {
            perform_rung(
                &ctx.engine,
                &app,
                &located.element,
                rung,
                gesture,
                held,
                &ctx.stats,
            )
        },
    )
    .await?;
    let Some(rung) = climbed.rung else {
        // Every rung was refused: nothing acted.
        return Err(AxError::Unsupported(format!(
            "{}: every way to click it was refused (tried {}); check get_element, or act on something else",
            located.label(),
            climbed.tried.join(", ")
        ))
        .into());
    };
    if climbed.changes.is_empty() && require_effect {
        let mut tried = climbed.tried;
        if !tried.iter().any(|t| t.starts_with(rung.as_str())) {
            tried.push(format!("{} (no effect)", rung.as_str()));
        }
        return Err(AxError::NoEffect {
            element: located.label(),
            tried,
        }
        .into());
    }
    let unseen = format!(
        "no observable effect: the {} was accepted and nothing visible changed (a toggle already \
         in that state, a form already clear, or an effect still to come). {}Check with \
         get_element or wait_for; pass require_effect: true to fail instead",
        rung.as_str(),
        if fallback {
            ""
        } else {
            "No other rung ran, so a late effect cannot act twice; pass fallback: true to try the next. "
        }
    );
    let outcome = Outcome {
        changes: climbed.changes,
        rung: Some(rung),
        late: climbed.late,
        unseen: Some(unseen),
    };
    Ok(acted_as(ctx, &located, "click", outcome).await)
}

pub(super) static CLICK: ToolDef = ToolDef {
    name: "click",
    title: "Click an element",
    description: "Clicks an element and verifies the effect.",
    profile: Profile::ACT,
    io: typed!(click, ClickArgs, ActSummary),
};

async fn focus(ctx: &ToolCtx, args: TargetArgs) -> ToolResult {
    let located = locate_for_write(ctx, &args.app, &args.target).await?;
    // Focus moves the keyboard's target; it presses nothing (a later key press is decided
    // on the element it would press).
    activates_nothing(ctx);
    let scope = located.scope(ctx).await?;
    let app = located.conn.app.clone();
    let (pid, id) = (app.pid, located.element.node.id);
    let changes = observe(ctx, &app, &scope, || {
        ctx.engine
            .run(&app, &ctx.stats, "focus", move |b, c| b.focus(pid, id, c))
    })
    .await?;
    Ok(acted(ctx, &located, "focus", changes, None).await)
}

pub(super) static FOCUS: ToolDef = ToolDef {
    name: "focus",
    title: "Focus an element",
    description: "Moves keyboard focus to an element and verifies it.",
    profile: Profile::ACT.idempotent(true),
    io: typed!(focus, TargetArgs, ActSummary),
};
