//! Random bytes for message ids, from the platform's source (the OS natively,
//! `crypto.getRandomValues` in browsers and Node) a kilobyte at a time: one call
//! per 64 ids. One call per id cost ~2 µs across the wasm boundary, a third of
//! `pushMany` for messages without ids.

use std::cell::RefCell;

/// Bytes drawn per call to the platform.
const POOL: usize = 1024;

thread_local! {
    /// Bytes not handed out yet: `POOL_BYTES[used..]`.
    static POOL_BYTES: RefCell<([u8; POOL], usize)> = const { RefCell::new(([0; POOL], POOL)) };
}

/// 16 random bytes, each handed out once.
///
/// Panics if the platform has no random source (as `uuid`'s `new_v4` does).
pub fn random_16() -> [u8; 16] {
    POOL_BYTES.with(|pool| {
        let (bytes, used) = &mut *pool.borrow_mut();
        if *used + 16 > POOL {
            // Not `expect`: the error's `Debug` would bring `std::io`'s messages along.
            if getrandom::fill(bytes).is_err() {
                panic!("no random source for message ids");
            }
            *used = 0;
        }
        let mut out = [0; 16];
        out.copy_from_slice(&bytes[*used..*used + 16]);
        *used += 16;
        out
    })
}
