//! wasm's memory for the JS halves of the bindings (`memory.js`): they read and write
//! the words at the addresses wasm gives them through one view that they keep.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/wasm/memory.js")]
extern "C" {
    /// Gives memory.js wasm's memory (`wasm_bindgen::memory()`).
    #[wasm_bindgen(js_name = useMemory)]
    pub fn use_memory(memory: &JsValue);
}
