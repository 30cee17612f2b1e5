//! Choosing among items: `select_option` (an item of a popup, list, tab group or radio
//! group, by title or index), and menus: `list_menus` and `select_menu` by a path such as
//! `File > Save As…`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::app_arg::{App, AppArgs};
use super::target::{Located, acted, locate_for_write, observe, open_app};
use super::{Profile, ToolDef, ToolResult, structured};
use crate::mcp::confirm::decide;
use crate::mcp::context::ToolCtx;
use crate::mcp::errors::ToolError;
use crate::mcp::wire::ActSummary;
use axgate_engine::act::Reach;
use axgate_engine::tree::{self, IndexedNode};
use axgate_engine::{AxError, ElementPath, Resolved, Role, SnapshotRequest};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SelectArgs {
    app: App,
    /// The popup, list, table, tab group or radio group.
    target: String,
    /// The item's title (string) or its index among the items (number, from 0).
    #[schemars(with = "super::schema::TitleOrIndex")]
    option: Value,
}

enum Pick {
    Title(String),
    Index(usize),
}

const ITEM_ROLES: &[Role] = &[
    Role::MenuItem,
    Role::ListItem,
    Role::Row,
    Role::Cell,
    Role::Tab,
    Role::RadioButton,
];

async fn select_option(ctx: &ToolCtx, args: SelectArgs) -> ToolResult {
    let pick = match &args.option {
        Value::String(s) => Pick::Title(s.clone()),
        Value::Number(n) => Pick::Index(n.as_u64().ok_or_else(|| {
            ToolError::Usage("invalid argument `option`: an index is a whole number from 0".into())
        })? as usize),
        _ => {
            return Err(ToolError::Usage(
                "invalid argument `option`: a title or an index".into(),
            ));
        }
    };
    let located = locate_for_write(ctx, &args.app, &args.target).await?;
    let app = located.conn.app.clone();
    let scope = located.scope(ctx).await?;
    let is_popup = matches!(
        located.element.node.role,
        Role::PopupButton | Role::ComboBox
    );
    if is_popup && items(ctx, &located).await?.is_empty() {
        // The menu exists only while open.
        let opener = ["show_menu", "press"]
            .into_iter()
            .find(|a| located.element.node.actions.iter().any(|x| x == a))
            .ok_or_else(|| AxError::Unsupported(format!("{} cannot be opened", located.label())))?;
        ctx.engine
            .perform_action(&app, located.element.node.id, opener, &ctx.stats)
            .await?;
    }
    let options = items(ctx, &located).await?;
    let chosen = match &pick {
        Pick::Index(i) => options.get(*i),
        Pick::Title(t) => options.iter().find(|n| same_title(n.node.label(), t)),
    }
    .cloned()
    .ok_or_else(|| {
        let names: Vec<String> = options
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i}: {}", n.node.label().unwrap_or("(untitled)")))
            .collect();
        AxError::NotFound {
            path: located.element.path.to_string(),
            expected: match &pick {
                Pick::Title(t) => format!("an option titled {t:?}"),
                Pick::Index(i) => format!("an option at index {i}"),
            },
            found: names,
        }
    })?;
    decide(
        ctx,
        &app.name,
        "choose",
        &[(chosen.node.clone(), chosen.path.to_string())],
    )
    .await?;
    let (pid, id) = (app.pid, chosen.node.id);
    let use_press =
        chosen.node.role == Role::MenuItem && chosen.node.actions.iter().any(|a| a == "press");
    let changes = observe(ctx, &app, &scope, || async {
        if use_press {
            ctx.engine
                .perform_action(&app, id, "press", &ctx.stats)
                .await
        } else {
            ctx.engine
                .run(&app, &ctx.stats, "select", move |b, c| b.select(pid, id, c))
                .await
        }
    })
    .await?;
    Ok(acted(ctx, &located, "select_option", changes, None).await)
}

pub(super) static SELECT_OPTION: ToolDef = ToolDef {
    name: "select_option",
    title: "Select an option",
    description: "Selects an item of a popup, list, table, tab group or radio group.",
    profile: Profile::ACT.idempotent(true),
    io: typed!(select_option, SelectArgs, ActSummary),
};

fn same_title(have: Option<&str>, want: &str) -> bool {
    let norm = |s: &str| s.trim().replace("...", "…").to_lowercase();
    have.is_some_and(|h| norm(h) == norm(want))
}

/// The selectable items under the container (menus of a popup included).
async fn items(ctx: &ToolCtx, located: &Located) -> Result<Vec<IndexedNode>, ToolError> {
    let request = SnapshotRequest {
        root: Some(located.element.node.id),
        max_depth: 4,
        max_nodes: 5_000,
        skip_children: 0,
    };
    let snapshot = ctx
        .engine
        .snapshot(
            &located.conn.app,
            request,
            ctx.engine.deadline(),
            &ctx.stats,
        )
        .await?;
    let nodes = tree::index(snapshot, &located.element.path);
    Ok(nodes
        .iter()
        .filter(|n| ITEM_ROLES.contains(&n.node.role) && n.depth > 0)
        .map(|n| {
            let mut item = n.clone();
            // An unnamed row takes the name of its first named child.
            if item.node.label().is_none()
                && let Some(label) = n.children.iter().find_map(|&c| nodes[c].node.label())
            {
                item.node.name = Some(label.to_owned());
            }
            item.children.clear();
            item
        })
        .collect())
}

#[derive(Serialize, JsonSchema)]
pub(super) struct MenuItemOut {
    /// `File > Save As…`
    menu_path: String,
    path: String,
    enabled: bool,
    has_submenu: bool,
}

#[derive(Serialize, JsonSchema)]
pub(super) struct MenusOut {
    app: String,
    pid: u32,
    items: Vec<MenuItemOut>,
}

/// Every menu item under the menu bar with its `A > B` path.
async fn menu_items(
    ctx: &ToolCtx,
    located_app: &str,
) -> Result<
    (
        std::sync::Arc<axgate_engine::AppConnection>,
        Vec<(String, IndexedNode)>,
    ),
    ToolError,
> {
    let conn = open_app(ctx, located_app).await?;
    let request = SnapshotRequest {
        root: None,
        max_depth: 8,
        max_nodes: 20_000,
        skip_children: 0,
    };
    let snapshot = ctx
        .engine
        .snapshot(&conn.app, request, ctx.engine.deadline(), &ctx.stats)
        .await?;
    let nodes = tree::index(snapshot, &ElementPath::default());
    let mut out = Vec::new();
    let Some(bar) = nodes.iter().position(|n| n.node.role == Role::MenuBar) else {
        return Err(AxError::Unsupported(format!("{} has no menu bar", conn.app.name)).into());
    };
    let mut stack: Vec<(usize, String)> = vec![(bar, String::new())];
    while let Some((at, prefix)) = stack.pop() {
        for &c in nodes[at].children.iter().rev() {
            let n = &nodes[c];
            let here = match (n.node.role, n.node.label()) {
                (Role::MenuBarItem | Role::MenuItem, Some(label)) if prefix.is_empty() => {
                    label.to_owned()
                }
                (Role::MenuBarItem | Role::MenuItem, Some(label)) => format!("{prefix} > {label}"),
                _ => prefix.clone(),
            };
            if n.node.role == Role::MenuItem {
                out.push((here.clone(), n.clone()));
            }
            stack.push((c, here));
        }
    }
    out.sort_by_key(|(_, n)| nodes.iter().position(|m| m.node.id == n.node.id));
    Ok((conn, out))
}

async fn list_menus(ctx: &ToolCtx, args: AppArgs) -> ToolResult {
    let (conn, items) = menu_items(ctx, &args.app).await?;
    let mut text = String::new();
    let out: Vec<MenuItemOut> = items
        .iter()
        .map(|(menu_path, n)| {
            let enabled = n.node.states.enabled;
            text.push_str(&format!(
                "{menu_path}{}\n",
                if enabled { "" } else { " (disabled)" }
            ));
            MenuItemOut {
                menu_path: menu_path.clone(),
                path: n.path.to_string(),
                enabled,
                has_submenu: n.node.child_count > 0,
            }
        })
        .collect();
    let out = MenusOut {
        app: conn.app.name.clone(),
        pid: conn.app.pid,
        items: out,
    };
    Ok(structured(text, &out))
}

pub(super) static LIST_MENUS: ToolDef = ToolDef {
    name: "list_menus",
    title: "List an app's menus",
    description: "Lists the app's menu bar items as paths such as `File > Save As…`.",
    profile: Profile::READ,
    io: typed!(list_menus, AppArgs, MenusOut),
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct MenuArgs {
    app: App,
    /// Items separated by `>`, such as `File > Save As…`.
    menu: String,
}

async fn select_menu(ctx: &ToolCtx, args: MenuArgs) -> ToolResult {
    let want: Vec<String> = args.menu.split('>').map(|s| s.trim().to_owned()).collect();
    let (conn, items) = menu_items(ctx, &args.app).await?;
    ctx.engine.check_write(&conn.app, &ctx.session.owner)?;
    let matches = |path: &str| {
        let have: Vec<&str> = path.split(" > ").collect();
        have.len() == want.len() && have.iter().zip(&want).all(|(h, w)| same_title(Some(h), w))
    };
    let Some((_, item)) = items.iter().find(|(p, _)| matches(p)) else {
        return Err(AxError::NotFound {
            path: args.menu.clone(),
            expected: format!("a menu item {:?}", args.menu),
            found: items.iter().map(|(p, _)| p.clone()).take(40).collect(),
        }
        .into());
    };
    let located = Located {
        conn,
        element: Resolved {
            node: item.node.clone(),
            path: item.path.clone(),
        },
    };
    if !item.node.states.enabled {
        return Err(AxError::Disabled {
            element: format!("menu item {:?}", args.menu),
        }
        .into());
    }
    decide(
        ctx,
        &located.conn.app.name,
        "choose",
        &[(item.node.clone(), format!("{:?}", args.menu))],
    )
    .await?;
    let app = located.conn.app.clone();
    let id = item.node.id;
    let changes = observe(ctx, &app, &Reach::app(), || {
        ctx.engine.perform_action(&app, id, "press", &ctx.stats)
    })
    .await?;
    Ok(acted(ctx, &located, "select_menu", changes, None).await)
}

pub(super) static SELECT_MENU: ToolDef = ToolDef {
    name: "select_menu",
    title: "Select a menu item",
    description: "Chooses a menu bar item by its path, such as `File > Save As…`.",
    profile: Profile::ACT,
    io: typed!(select_menu, MenuArgs, ActSummary),
};
