//! An in-process fake OpenAI-compatible Chat Completions server on loopback.
//!
//! Tests and benchmarks of anything that talks to a model endpoint start a
//! [`FakeServer`] with a [`Script`], point their client at
//! [`FakeServer::base_url`], and afterwards assert on what the server saw
//! ([`FakeServer::requests`], [`FakeServer::peak_concurrency`]).
//!
//! A [`Script`] answers each request with a [`Step`]: the first matching
//! [`Rule`] (by `model`, by text of the last user message or of any message,
//! by the role of the last message) gives the next step of its queue; if no
//! rule matches, a fallback closure computes one from the request body.
//! Steps cover well-formed replies (content, tool calls, reasoning, length
//! cut-off) and every misbehaviour a client must survive: error statuses with
//! `Retry-After`, delays, truncated, non-JSON and incomplete bodies, empty
//! choices or content, and connections dropped or reset without a response.
//!
//! ```
//! use svbench_fakeai::{FakeServer, Rule, Script, Step};
//!
//! let server = FakeServer::start(
//!     Script::new()
//!         .rule(Rule::any().when_user_contains("flaky").steps([Step::status(500), Step::content("ok")]))
//!         .fallback(|_body| Step::content("fine")),
//! );
//! let url = format!("{}/chat/completions", server.base_url());
//! assert!(url.starts_with("http://127.0.0.1:"));
//! assert_eq!(server.request_count(), 0);
//! server.shutdown();
//! ```
//!
//! The server speaks plain HTTP/1.1 with keep-alive, built directly on hyper
//! (rather than axum's router) because several steps act below the level of
//! a response: closing or resetting the socket, or cutting a body mid-way.

#![warn(missing_docs)]

mod record;
mod response;
mod script;
mod server;
mod step;

pub use record::RecordedRequest;
pub use script::{last_user_text, message_text, Rule, Script, WhenExhausted};
pub use server::FakeServer;
pub use step::{ReasoningKey, Step, ToolCall};
