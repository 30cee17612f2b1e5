//! What an act would activate, for the destructive-act decision point (`mcp/confirm.rs`):
//! the element a key combination would press, the element under the pointer, any element by
//! its node id. Each is returned with where it is, for the question put to the user.

use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use axgate_engine::keys::{Key, KeyCombo, NamedKey};
use axgate_engine::{AppInfo, AxError, NodeId, RawNode, SnapshotRequest};

use super::target::Located;

/// An element about to be activated and a description of where it is.
pub(super) type Receiver = (RawNode, String);

/// The node `id` of `app` as it is now; `None` when it is gone.
pub(super) async fn node_of(
    ctx: &ToolCtx,
    app: &AppInfo,
    id: NodeId,
) -> Result<Option<RawNode>, AxError> {
    let request = SnapshotRequest {
        root: Some(id),
        max_depth: 0,
        max_nodes: 1,
        skip_children: 0,
    };
    match ctx
        .engine
        .snapshot(app, request, ctx.engine.deadline(), &ctx.stats)
        .await
    {
        Ok(snapshot) => Ok(snapshot.nodes.into_iter().next()),
        Err(AxError::NotFound { .. } | AxError::Stale { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Space, Return (or the keypad's Enter) without a command modifier: the keys that press a
/// focused control or a default button.
pub(super) fn is_activation(combo: &KeyCombo) -> bool {
    let m = combo.modifiers;
    !(m.cmd || m.ctrl || m.opt)
        && matches!(
            combo.key,
            Key::Named(NamedKey::Space | NamedKey::Return) | Key::Char(' ' | '\n' | '\r')
        )
}

/// What pressing `combo` in `located`'s app would press: the backend's answer, or, when it
/// cannot tell, the focused element `located` for an activation key when it can be pressed.
pub(super) async fn key_receivers(
    ctx: &ToolCtx,
    located: &Located,
    combo: &KeyCombo,
) -> Result<Vec<Receiver>, ToolError> {
    let app = located.conn.app.clone();
    let pid = app.pid;
    let key = *combo;
    let answer = ctx
        .engine
        .run(&app, &ctx.stats, "key_receiver", move |b, c| {
            b.key_receiver(pid, key, c)
        })
        .await;
    match answer {
        Ok(Some(id)) => Ok(node_of(ctx, &app, id)
            .await?
            .map(|node| (node, format!("the element the key {key} presses")))
            .into_iter()
            .collect()),
        Ok(None) => Ok(Vec::new()),
        Err(AxError::Unsupported(_)) => {
            let node = &located.element.node;
            let pressable = node.actions.iter().any(|a| a == "press" || a == "confirm");
            Ok(if is_activation(combo) && pressable {
                vec![(node.clone(), located.element.path.to_string())]
            } else {
                Vec::new()
            })
        }
        Err(e) => Err(e.into()),
    }
}

/// The element under `point` in `app`, which a pointer click there would activate.
pub(super) async fn pointer_receiver(
    ctx: &ToolCtx,
    app: &AppInfo,
    point: (f64, f64),
) -> Result<Option<Receiver>, ToolError> {
    let pid = app.pid;
    let hit = ctx
        .engine
        .run(app, &ctx.stats, "element_at", move |b, c| {
            b.element_at(pid, point, c)
        })
        .await;
    let id = match hit {
        Ok(Some(id)) => id,
        Ok(None) | Err(AxError::Unsupported(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    Ok(node_of(ctx, app, id).await?.map(|node| {
        (
            node,
            format!(
                "the element under the pointer at ({:.0}, {:.0})",
                point.0, point.1
            ),
        )
    }))
}
