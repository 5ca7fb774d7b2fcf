// wasm's memory as JS reads and writes it at addresses wasm gives: kept views of it (its
// 32-bit words, floats and bytes), made again after the memory grows, which detaches them
// all (a detached view's length is 0), instead of a view made for every call (wasm-bindgen's
// for a slice). What wasm gives the address of stays where it is when the memory grows, so
// a getter that makes wasm grow it meanwhile changes nothing for a caller that asks for the
// view again.

let memory;
let words = new Uint32Array(0);
let floats = new Float64Array(0);
let bytes = new Uint8Array(0);

/** Sets wasm's memory, once, before wasm first gives an address. */
export function useMemory(wasmMemory) {
  memory = wasmMemory;
}

/** The views, made again: the memory grew since they were made (or none was). */
function remake() {
  const buffer = memory.buffer;
  words = new Uint32Array(buffer);
  floats = new Float64Array(buffer);
  bytes = new Uint8Array(buffer);
}

/** The 32-bit words of wasm's memory: the word at byte address `a` is `wasmWords()[a >>> 2]`. */
export function wasmWords() {
  if (words.byteLength === 0) remake();
  return words;
}

/** The 64-bit floats of wasm's memory: the one at byte address `a` is `wasmFloats()[a >>> 3]`. */
export function wasmFloats() {
  if (floats.byteLength === 0) remake();
  return floats;
}

/** The bytes of wasm's memory. */
export function wasmBytes() {
  if (bytes.byteLength === 0) remake();
  return bytes;
}
