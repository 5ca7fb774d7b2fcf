//! `future_to_promise` behind one boxed future type, so that the module holds
//! one copy of its task and promise machinery instead of one per async export.

use std::future::Future;

use futures::future::{FutureExt, LocalBoxFuture};
use wasm_bindgen::JsValue;

/// A `Promise` that settles with `future`'s result.
pub fn future_to_promise(future: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> js_sys::Promise {
    let boxed: LocalBoxFuture<'static, Result<JsValue, JsValue>> = future.boxed_local();
    wasm_bindgen_futures::future_to_promise(boxed)
}
