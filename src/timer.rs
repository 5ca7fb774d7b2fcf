//! The clock behind the summary timeout: `futures-timer` natively, and on
//! wasm32 a promise that `setTimeout` resolves (dropping the future clears it).

/// A future that completes after `duration`.
#[cfg(not(target_arch = "wasm32"))]
pub fn sleep(duration: std::time::Duration) -> impl std::future::Future<Output = ()> + Send {
    futures_timer::Delay::new(duration)
}

#[cfg(target_arch = "wasm32")]
pub use js::sleep;

/// The wasm32 timer: a promise that `setTimeout` resolves, awaited with the
/// promise machinery the module has anyway (`gloo-timers` brought a channel
/// and a closure type of its own).
#[cfg(target_arch = "wasm32")]
mod js {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use std::time::Duration;

    use js_sys::{Function, Promise};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;

    use crate::single_threaded::SingleThreaded;

    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_name = setTimeout)]
        fn set_timeout(handler: &Function, millis: i32) -> JsValue;
        #[wasm_bindgen(js_name = clearTimeout)]
        fn clear_timeout(id: &JsValue);
    }

    /// A future that completes after `duration`, clamped to `setTimeout`'s
    /// longest delay (2^31 − 1 ms, 24.8 days): beyond it, `setTimeout` fires at once.
    pub fn sleep(duration: Duration) -> impl Future<Output = ()> + Send {
        let millis = duration.as_millis().min(i32::MAX as u128) as i32;
        let mut timer = (JsValue::UNDEFINED, JsValue::UNDEFINED);
        let promise = Promise::new(&mut |resolve, _| timer = (set_timeout(&resolve, millis), resolve.into()));
        let (id, resolve) = timer;
        SingleThreaded(Sleep { id, resolve, promise: JsFuture::from(promise) })
    }

    /// The promise of a running timer.
    struct Sleep {
        /// The timer, cleared on drop.
        id: JsValue,
        /// The promise's `resolve`, called on drop: the callbacks that `JsFuture`
        /// hangs on the promise are freed when they run, not if it stays pending.
        resolve: JsValue,
        promise: JsFuture,
    }

    impl Future for Sleep {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            Pin::new(&mut self.promise).poll(cx).map(|_| ())
        }
    }

    impl Drop for Sleep {
        fn drop(&mut self) {
            clear_timeout(&self.id);
            let _ = self.resolve.unchecked_ref::<Function>().call0(&JsValue::UNDEFINED);
        }
    }
}
