//! [`SingleThreaded`]: lets a JS value or a `!Send` future meet the core's
//! `Send + Sync` bounds on wasm32 (compiled for that target only).
//!
//! Sound because wasm32 without the `atomics` feature runs one thread: no
//! value can reach another thread. A threaded build fails to compile here
//! rather than be unsound. (The `send_wrapper` crate did this with a
//! run-time thread check, which linked `std::thread` and a second allocator.)

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

#[cfg(target_feature = "atomics")]
compile_error!("SingleThreaded is only sound on wasm32 without threads (the `atomics` feature)");

/// A value that may cross thread bounds, because there are none.
#[derive(Debug, Clone)]
pub struct SingleThreaded<T>(pub T);

// SAFETY: see the module docs: wasm32 without `atomics` has one thread.
unsafe impl<T> Send for SingleThreaded<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SingleThreaded<T> {}

impl<T> std::ops::Deref for SingleThreaded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<F: Future> Future for SingleThreaded<F> {
    type Output = F::Output;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: structural pinning: the field is never moved out of a pinned wrapper.
        unsafe { self.map_unchecked_mut(|s| &mut s.0) }.poll(cx)
    }
}
