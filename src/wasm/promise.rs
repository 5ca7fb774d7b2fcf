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

/// A future of what `value` settles to, as `await value` in JS: a thenable's
/// `then` runs in a job of a new promise, so that one that throws rejects the
/// future (`Promise.resolve` would return a promise as is, and `JsFuture`
/// would call its `then` here, letting the throw unwind through the module).
pub fn settled(value: &JsValue) -> wasm_bindgen_futures::JsFuture {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = resolve.call1(&JsValue::UNDEFINED, value);
    });
    wasm_bindgen_futures::JsFuture::from(promise)
}
