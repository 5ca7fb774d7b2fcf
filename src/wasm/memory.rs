//! wasm's memory for the JS halves of the bindings (`memory.js`): they read and write
//! at the addresses wasm gives them through views that they keep.

use std::cell::Cell;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/wasm/memory.js")]
extern "C" {
    /// Gives memory.js wasm's memory (`wasm_bindgen::memory()`).
    #[wasm_bindgen(js_name = useMemory)]
    fn use_memory(memory: &JsValue);
}

/// Gives memory.js wasm's memory the first time it is called: before each call that
/// passes JS an address. (Not in the start function, which a test harness that links
/// the crate does not run.)
pub fn give_memory() {
    thread_local! {
        static GIVEN: Cell<bool> = const { Cell::new(false) };
    }
    if !GIVEN.with(|given| given.replace(true)) {
        use_memory(&wasm_bindgen::memory());
    }
}
