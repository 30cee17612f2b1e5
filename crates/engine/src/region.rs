//! What a screenshot of a screen region may show (`Engine::check_capture_region`). A region (given, or an element's frame) is
//! captured from the screen as it is, so it would show any window lying in it — a denied
//! app's too. Before a region is captured, the windows of every app the policy denies are
//! looked up, and a region that overlaps one (not minimized) is refused; the refusal names no
//! app, and the audit line keeps the rule.

use super::engine::Engine;
use super::error::AxError;
use super::model::Rect;
use super::worker::CallStats;

impl Engine {
    /// Fails when `region` overlaps a window of an app the policy denies.
    pub async fn check_capture_region(
        &self,
        region: Rect,
        stats: &CallStats,
    ) -> Result<(), AxError> {
        let rules = self.app_rules();
        for app in self.running_apps(stats).await?.iter() {
            let Err(denial) = rules.check_app(app) else {
                continue;
            };
            let windows = self.list_windows(app, stats).await?;
            let shown = windows
                .iter()
                .filter(|w| !w.minimized)
                .filter_map(|w| w.frame)
                .any(|frame| frame.overlaps(&region));
            if shown {
                return Err(AxError::AppDenied {
                    denial,
                    shown: Box::new(AxError::Unsupported(
                        "the region shows windows this server may not capture; capture the \
                         app's window (omit `region`) or a region clear of other apps' windows"
                            .into(),
                    )),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rects_overlap_only_when_they_share_area() {
        let a = Rect {
            x: 0.0,
            y: 0.0,
            w: 10.0,
            h: 10.0,
        };
        let inside = Rect {
            x: 5.0,
            y: 5.0,
            w: 1.0,
            h: 1.0,
        };
        let touching = Rect { x: 10.0, ..inside };
        assert!(a.overlaps(&inside) && inside.overlaps(&a));
        assert!(!a.overlaps(&touching), "edges do not count");
    }
}
