//! The last picture of each large window an act looked at, kept beside the app's event stream
//! from the moment it was taken. The next act in that window starts from it instead of
//! picturing a thousand nodes again: the events since name what changed (those elements are
//! re-read), and anything the events cannot say precisely (a structural change, an event
//! naming no element, events lost, too many elements, too long ago) sends the act back to a
//! whole picture. Plain bookkeeping; what is re-read and when is `act`'s.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::broadcast::Receiver;

use super::backend::ChangeEvent;
use super::diff::Picture;
use super::model::{NodeId, Pid};

/// Windows kept at most (the one acted on last replaces the oldest).
const WINDOWS: usize = 8;
/// A kept picture older than this is not trusted: an app left alone for long may have
/// changed in ways a lagging event stream no longer says.
pub const KEPT_FOR: Duration = Duration::from_secs(60);

/// A window's picture and the app's events since it was taken.
pub struct Kept {
    pub picture: Picture,
    /// Subscribed before the picture was read: every change after the reading is in it.
    pub events: Receiver<ChangeEvent>,
    pub taken: Instant,
}

/// The kept pictures, by app and window.
#[derive(Default)]
pub struct KeptPictures {
    windows: Mutex<VecDeque<(Pid, NodeId, Kept)>>,
}

impl KeptPictures {
    /// Takes the picture of a window out (the act owns it until it keeps the next one);
    /// `None` when there is none or it is too old.
    pub fn take(&self, pid: Pid, window: NodeId) -> Option<Kept> {
        let mut list = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        let at = list
            .iter()
            .position(|(p, w, _)| *p == pid && *w == window)?;
        let (_, _, kept) = list.remove(at)?;
        (kept.taken.elapsed() < KEPT_FOR).then_some(kept)
    }

    /// Keeps a window's picture (replacing an older one of it).
    pub fn keep(&self, pid: Pid, window: NodeId, kept: Kept) {
        let mut list = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        list.retain(|(p, w, _)| !(*p == pid && *w == window));
        if list.len() >= WINDOWS {
            list.pop_front();
        }
        list.push_back((pid, window, kept));
    }

    /// Forgets every window of an app.
    pub fn forget(&self, pid: Pid) {
        let mut list = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        list.retain(|(p, _, _)| *p != pid);
    }

    pub fn len(&self) -> usize {
        self.windows
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::broadcast;

    fn kept(taken: Instant) -> Kept {
        let (tx, rx) = broadcast::channel(4);
        drop(tx);
        Kept {
            picture: Picture::default(),
            events: rx,
            taken,
        }
    }

    #[test]
    fn a_picture_is_taken_once_and_only_while_fresh() {
        let k = KeptPictures::default();
        k.keep(1, NodeId(7), kept(Instant::now()));
        assert!(k.take(1, NodeId(8)).is_none(), "another window");
        assert!(k.take(2, NodeId(7)).is_none(), "another app");
        assert!(k.take(1, NodeId(7)).is_some());
        assert!(k.take(1, NodeId(7)).is_none(), "taken out");
        if let Some(old) = Instant::now().checked_sub(KEPT_FOR + Duration::from_secs(1)) {
            k.keep(1, NodeId(7), kept(old));
            assert!(k.take(1, NodeId(7)).is_none(), "too old");
        }
    }

    #[test]
    fn bounded_and_forgotten_with_the_app() {
        let k = KeptPictures::default();
        for w in 0..(WINDOWS as u64 + 2) {
            k.keep(1, NodeId(w), kept(Instant::now()));
        }
        assert_eq!(k.len(), WINDOWS);
        assert!(k.take(1, NodeId(0)).is_none(), "the oldest went first");
        k.keep(2, NodeId(0), kept(Instant::now()));
        k.forget(1);
        assert_eq!(k.len(), 1);
        assert!(k.take(2, NodeId(0)).is_some());
    }
}
