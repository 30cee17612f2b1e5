//! Which AX notifications an app observer subscribes to, and the [`ChangeKind`] each one
//! reports. Plain data, no Apple types. Events are hints: the engine debounces and re-queries,
//! so a coarse kind is enough.

use axgate_engine::ChangeKind;

/// Notifications subscribed on every observed application element.
pub(crate) const APP_NOTIFICATIONS: &[(&str, ChangeKind)] = &[
    ("AXFocusedUIElementChanged", ChangeKind::FocusChanged),
    ("AXFocusedWindowChanged", ChangeKind::FocusChanged),
    ("AXMainWindowChanged", ChangeKind::FocusChanged),
    ("AXApplicationActivated", ChangeKind::FocusChanged),
    ("AXApplicationDeactivated", ChangeKind::FocusChanged),
    ("AXWindowCreated", ChangeKind::WindowCreated),
    ("AXSheetCreated", ChangeKind::WindowCreated),
    ("AXDrawerCreated", ChangeKind::WindowCreated),
    ("AXWindowMoved", ChangeKind::BoundsChanged),
    ("AXWindowResized", ChangeKind::BoundsChanged),
    ("AXWindowMiniaturized", ChangeKind::StateChanged),
    ("AXWindowDeminiaturized", ChangeKind::StateChanged),
    ("AXApplicationHidden", ChangeKind::StateChanged),
    ("AXApplicationShown", ChangeKind::StateChanged),
    ("AXSelectedChildrenChanged", ChangeKind::StateChanged),
    ("AXSelectedRowsChanged", ChangeKind::StateChanged),
    ("AXRowExpanded", ChangeKind::StateChanged),
    ("AXRowCollapsed", ChangeKind::StateChanged),
    ("AXTitleChanged", ChangeKind::TitleChanged),
    ("AXValueChanged", ChangeKind::ValueChanged),
    ("AXMenuOpened", ChangeKind::MenuOpened),
    ("AXMenuClosed", ChangeKind::MenuClosed),
    ("AXLayoutChanged", ChangeKind::ChildrenChanged),
    ("AXCreated", ChangeKind::ChildrenChanged),
    ("AXRowCountChanged", ChangeKind::ChildrenChanged),
];

/// Subscribed on each window (an element's own destruction is only reported to observers
/// registered on that element), so that closing a window is reported.
pub(crate) const WINDOW_DESTROYED: &str = "AXUIElementDestroyed";

/// The change a received notification reports; `None` for notifications never subscribed.
pub(crate) fn change_kind(notification: &str) -> Option<ChangeKind> {
    if notification == WINDOW_DESTROYED {
        return Some(ChangeKind::WindowClosed);
    }
    APP_NOTIFICATIONS
        .iter()
        .find(|(name, _)| *name == notification)
        .map(|&(_, kind)| kind)
}

/// Whether a notification announces a new window-like element, which gets its own
/// [`WINDOW_DESTROYED`] subscription.
pub(crate) fn announces_window(notification: &str) -> bool {
    change_kind(notification) == Some(ChangeKind::WindowCreated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subscription_maps_to_a_kind() {
        for (i, (name, kind)) in APP_NOTIFICATIONS.iter().enumerate() {
            assert_eq!(change_kind(name), Some(*kind));
            assert!(name.starts_with("AX"), "{name}");
            assert!(
                APP_NOTIFICATIONS[i + 1..].iter().all(|(n, _)| n != name),
                "{name} listed twice"
            );
        }
    }

    #[test]
    fn window_lifecycle() {
        assert_eq!(
            change_kind(WINDOW_DESTROYED),
            Some(ChangeKind::WindowClosed)
        );
        assert!(announces_window("AXWindowCreated"));
        assert!(announces_window("AXSheetCreated"));
        assert!(!announces_window("AXValueChanged"));
        assert_eq!(change_kind("AXAnnouncementRequested"), None);
    }

    #[test]
    fn app_exit_is_not_an_ax_notification() {
        // The process exit watcher reports AppExited; no subscription claims it.
        assert!(
            APP_NOTIFICATIONS
                .iter()
                .all(|(_, kind)| *kind != ChangeKind::AppExited)
        );
    }
}
