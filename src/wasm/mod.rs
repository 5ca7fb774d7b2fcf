//! The WebAssembly bindings: they only translate between JS and the core.
//! Messages and other JSON values cross the boundary as one batch each way
//! (`values`); options are read field by field; events and the `summarize`
//! arguments are made with serde-wasm-bindgen, a compaction's outcome and counts
//! by one JS factory call each (`outcome`); errors become
//! `CompactionError`s.

mod compactor_options;
mod context_manager;
mod convert;
mod errors;
mod fetch_summarizers;
mod formats;
mod functions;
mod inspect;
mod js_messages;
mod js_summarizer;
mod llm_compactor;
mod memory;
mod options;
mod outcome;
mod promise;
mod threshold_compactor;
mod values;

use wasm_bindgen::prelude::*;

pub use context_manager::JsContextManager;
pub use llm_compactor::JsLlmCompactor;
pub use threshold_compactor::JsThresholdCompactor;

/// Installs the panic hook, so that a bug shows a Rust message in the console.
/// The start function runs once per instance: no `Once` needed (`set_once` has one).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(console_error_panic_hook::hook));
}
