//! The clock behind the summary timeout: `futures-timer` natively, and on
//! wasm32 `setTimeout` through `gloo-timers` (dropping the future clears it).

use std::future::Future;
use std::time::Duration;

/// A future that completes after `duration`.
#[cfg(not(target_arch = "wasm32"))]
pub fn sleep(duration: Duration) -> impl Future<Output = ()> + Send {
    futures_timer::Delay::new(duration)
}

/// A future that completes after `duration`, clamped to `setTimeout`'s
/// longest delay (2^31 − 1 ms, 24.8 days): beyond it, `setTimeout` fires at once.
#[cfg(target_arch = "wasm32")]
pub fn sleep(duration: Duration) -> impl Future<Output = ()> + Send {
    let millis = duration.as_millis().min(i32::MAX as u128) as u32;
    send_wrapper::SendWrapper::new(gloo_timers::future::TimeoutFuture::new(millis))
}
