// Looking at the caller's values for `inspect.rs`, on the error path and where
// a value's kind decides something. What these throw (a getter, a Proxy trap, a
// revoked Proxy) is caught by the bindings, which report it with a path.

// Called through this constant, not looked up on each string (see `charCodeAt` in values.js).
const { isWellFormed } = String.prototype;

// Lone surrogates: JSON text keeps them escaped, UTF-8 cannot hold them.
// (A `u` regex sees a pair as one code point: it finds only lone surrogates.)
const LONE_SURROGATE = /\p{Surrogate}/u;
/** Whether `s` has no lone surrogate (also for js_messages.js). */
export const wellFormed = typeof isWellFormed === 'function'
  ? (s) => isWellFormed.call(s)
  : (s) => !LONE_SURROGATE.test(s); // engines before 2023 (Firefox ESR 115, Safari 16.3)

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

/** Whether `typeName(value)` is 'object': a plain object or a class instance. */
export function isObject(value) {
  return typeName(value) === 'object';
}

/**
 * The message of a thrown value: a string itself, or an `Error`'s `message` when
 * it is a string; else undefined (described by its kind). Never throws: a
 * `message` getter or a Proxy trap that throws is taken as no message.
 */
export function thrownMessage(value) {
  try {
    if (typeof value === 'string') return value;
    if (value instanceof Error && typeof value.message === 'string') return value.message;
  } catch {
    // Described by its kind instead.
  }
  return undefined;
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

/** Nesting the model's reader refuses beyond (`MAX_NESTING` in src/model/read.rs). */
const MAX_NESTING = 127;

/**
 * Why `value` cannot be read as JSON text: `[path, reason, thrown]` for the first
 * field, in the order JSON.stringify reads them, that throws when read (`thrown`
 * is what it threw), is a BigInt, a cycle, nested too deep or a string with a lone
 * surrogate; the path is from `value` (`[0].content[1].text`). Undefined if there
 * is none. With `throwsOnly`, only what throws is looked for. Reads every field
 * again: for the error path only.
 */
export function jsonProblem(value, throwsOnly) {
  const open = new Set(); // the objects around the one being read: meeting one again is a cycle

  // `value` read from `holder[key]` at `path`, inside `depth` arrays and objects.
  function walk(value, key, path, depth) {
    if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
      let toJSON;
      try {
        toJSON = value.toJSON;
      } catch (thrown) {
        return [path, 'could not be read', thrown]; // a Proxy's trap, or a revoked Proxy
      }
      try {
        if (typeof toJSON === 'function') value = toJSON.call(value, key);
      } catch (thrown) {
        return [path, 'its toJSON threw', thrown];
      }
    }
    const object = typeof value === 'object' && value !== null;
    if (!throwsOnly) {
      if (typeof value === 'string') return lone(value, path, 'contains');
      if (typeof value === 'bigint') return [path, 'is a BigInt, which JSON cannot hold: convert it to a number or a string'];
      if (object && open.has(value)) return [path, 'is a cyclic reference (to an object that contains it)'];
      if (object && depth === MAX_NESTING) return [path, `is nested deeper than ${MAX_NESTING} levels of arrays and objects`];
    }
    if (!object || open.has(value) || depth === MAX_NESTING) return undefined;
    open.add(value);
    try {
      const array = Array.isArray(value);
      const keys = array ? null : Object.keys(value);
      const length = array ? value.length : keys.length;
      for (let i = 0; i < length; i++) {
        const k = array ? String(i) : keys[i];
        const at = array ? `${path}[${i}]` : `${path}.${k}`;
        const problem = (!array && !throwsOnly && lone(k, at, 'has a key that contains'))
          || read(value, k, at, depth + 1);
        if (problem) return problem;
      }
    } catch (thrown) {
      return [path, 'could not be read', thrown]; // a Proxy's trap, or a revoked Proxy
    } finally {
      open.delete(value);
    }
    return undefined;
  }

  function read(holder, key, path, depth) {
    let value;
    try {
      value = holder[key];
    } catch (thrown) {
      return [path, 'could not be read', thrown];
    }
    return walk(value, key, path, depth);
  }

  return walk(value, '', '', 0);
}

// `[path, reason]` if `s` has a lone surrogate, else undefined.
function lone(s, path, what) {
  if (wellFormed(s)) return undefined;
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    if (unit >= 0xd800 && unit < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      i++; // a pair
    } else if ((unit & 0xf800) === 0xd800) {
      const code = unit.toString(16).toUpperCase();
      return [path, `${what} a lone surrogate (U+${code}) at index ${i}, which UTF-8 cannot encode: `
        + 'remove it, or replace it with U+FFFD (text.toWellFormed())'];
    }
  }
  return undefined;
}
