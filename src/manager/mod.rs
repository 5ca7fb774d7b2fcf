//! A conversation kept under its context limit: the [`ContextManager`] state
//! machine, the conversation it holds with its caches, the escalation that
//! makes it fit, request bodies that rewrite only what changed, and the state
//! it saves.

pub mod context_manager;
mod conversation;
pub mod fit;
pub mod request_body;
mod saved_state;

pub use context_manager::{ContextManager, ContextManagerConfig, Outcome, Step, Strategy, SummaryJob};
pub use fit::{Compacted, Escalation};
pub use request_body::BodyRequest;
pub use saved_state::STATE_VERSION;
