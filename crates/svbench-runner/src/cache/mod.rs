//! The response cache (harness §2.5): model responses stored in SQLite under
//! a hash of the full request, so that re-running an identical evaluation
//! makes no network requests.
//!
//! The client decides per request, through [`CacheMode::reads`] and
//! [`CacheMode::writes`], whether to look a response up or store it, and
//! stores only well-formed successes. API keys and headers never reach this
//! module: the key is built from the base URL, the request body and the
//! rollout index only ([`ResponseCache::key`]).
//!
//! The file is disposable: deleting it (even during a run) loses nothing but
//! cached responses, and [`ResponseCache::open`] recreates it.

mod key;
mod mode;
mod store;

pub use mode::{CacheMode, ParseCacheModeError};
pub use store::{CacheError, ResponseCache};
