// Text from the .wasm, as a JS string: ASCII as UTF-8, any other as UTF-16 code
// units (views of its memory). What these throw (a text longer than a JS string
// can be) is caught by js_text.rs.
// Node 20's TextDecoder reads non-ASCII UTF-8 at 4–6 ns a byte; UTF-16 it copies.
// Node's own Buffer decodes UTF-16 about ten times faster than its TextDecoder does.

// ignoreBOM: a leading U+FEFF is text, kept (as wasm-bindgen's own decoder keeps it).
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const decoder = new TextDecoder('utf-16le', { ignoreBOM: true });

/** The string whose UTF-8 bytes `bytes` (a Uint8Array) holds. */
export function fromUtf8(bytes) {
  return utf8.decode(bytes);
}
const nodeBuffer = typeof process === 'object' && process.versions?.node && typeof Buffer === 'function' ? Buffer : null;

/** The string whose UTF-16 code units `units` (a Uint16Array) holds. */
export function fromUtf16(units) {
  if (nodeBuffer) return nodeBuffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le');
  return decoder.decode(units);
}
