//! Caching hints on list results (2026-07-28, SEP-2549: `ttlMs` and `cacheScope`): how long a
//! client may reuse a list, and whether a cache may share it across callers. They are sent in
//! every protocol version; older clients ignore fields they do not know.
//!
//! - `tools/list` holds what the caller's scopes allow: private; it changes only when the
//!   policy or tokens are reloaded, so a minute is fresh enough.
//! - `resources/list` names the apps running now: private, and stale at once.
//! - `prompts/list` and `resources/templates/list` are the same for every caller and change
//!   only with the binary: public, ten minutes.

use rmcp::model::{
    CacheScope, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult,
};

/// A freshness and a sharing rule for one kind of list.
#[derive(Clone, Copy, Debug)]
pub struct Hint {
    pub ttl_ms: u64,
    pub scope: CacheScope,
}

pub const TOOLS: Hint = Hint {
    ttl_ms: 60_000,
    scope: CacheScope::Private,
};
pub const RESOURCES: Hint = Hint {
    ttl_ms: 0,
    scope: CacheScope::Private,
};
pub const STATIC: Hint = Hint {
    ttl_ms: 600_000,
    scope: CacheScope::Public,
};

/// A list result that can carry a [`Hint`].
pub trait Cacheable: Sized {
    fn cached(self, hint: Hint) -> Self;
}

macro_rules! cacheable {
    ($($list:ty),*) => {$(
        impl Cacheable for $list {
            fn cached(self, hint: Hint) -> Self {
                self.with_ttl_ms(hint.ttl_ms).with_cache_scope(hint.scope)
            }
        }
    )*};
}

cacheable!(
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult
);
