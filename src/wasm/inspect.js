// Looking at the caller's values for `inspect.rs`, on the error path and where
// a value's kind decides something. What these throw (a getter, a Proxy trap, a
// revoked Proxy) is caught by the bindings, which report it with a path.

/**
 * What `value` is, for checks and error messages: "null", "array", "object" (a
 * plain object or a class instance), the name of a built-in ("Map", "Date",
 * "WeakMap") or typeof. Throws for a revoked Proxy.
 */
export function typeName(value) {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  if (Array.isArray(value)) return 'array';
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  return tag === 'Object' ? 'object' : tag;
}

/** A Map's entries as an object (without prototype: any key is a field), or null if a key is not a string. */
export function mapObject(map) {
  const object = Object.create(null);
  let strings = true;
  map.forEach((value, key) => {
    if (typeof key === 'string') object[key] = value;
    else strings = false;
  });
  return strings ? object : null;
}
