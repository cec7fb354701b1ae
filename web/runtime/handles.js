// handles.js — the plumbing under web/runtime/blockscope.js's classes: input marshalling (typed arrays, token-id
// batches) and the base classes that own a wasm-side object (dispose(), `using`, a FinalizationRegistry
// safety net, and dependents freed before their owner). It never touches the Emscripten module itself.

// Input marshalling: validate in JS what typed arrays cannot express, and name the problem.

/**
 * `value` (a config or options object; null means {}) as the JSON text the core parses. NaN and ±Infinity,
 * which JSON would silently turn into null, are refused naming their key, as are values JSON cannot carry.
 */
export function jsonText(value, what) {
  let text;
  try {
    text = JSON.stringify(value ?? {}, (key, v) => {
      if (typeof v === 'number' && !Number.isFinite(v)) throw new Error(`${what} key '${key}' must be a finite number, got ${v}`);
      if (typeof v === 'bigint') return Number(v);
      return v;
    });
  } catch (err) {
    if (err instanceof RangeError) throw new Error(`${what} is nested too deeply to be read`);
    if (err instanceof TypeError) throw new Error(`${what} cannot be read as JSON: ${err.message}`);
    throw err;
  }
  if (typeof text !== 'string' || !text.startsWith('{')) throw new Error(`${what} must be an object`);
  return text;
}

/** A number argument for the core (which names NaN, non-integers and out-of-range values in its errors). */
export function num(value) {
  return typeof value === 'number' ? value : Number(value);
}

/**
 * `data` as it may cross into wasm: a typed array or ArrayBuffer whose memory has been transferred away (to a
 * worker) is refused by name — embind would read it as nothing and fail deep inside the module —, and one on a
 * SharedArrayBuffer is copied, so another thread cannot change it during the call. Anything else is returned as is.
 */
export function checkedBuffer(data, what) {
  const isView = ArrayBuffer.isView(data);
  if (!isView && !(data instanceof ArrayBuffer) && !isShared(data)) return data;
  const buffer = isView ? data.buffer : data;
  try {
    new Uint8Array(buffer, 0, 0); // throws on a detached buffer
  } catch {
    throw new Error(`${what} is a detached ${isView ? data.constructor.name : 'ArrayBuffer'}: its memory was transferred ` +
      '(to a worker, with postMessage); pass a copy made before the transfer');
  }
  if (!isShared(buffer)) return data;
  return isView ? new data.constructor(data) : new Uint8Array(new Uint8Array(buffer)).buffer;
}
const isShared = (b) => typeof SharedArrayBuffer !== 'undefined' && b instanceof SharedArrayBuffer;

export function toFloat32(data, what) {
  data = checkedBuffer(data, what);
  if (data instanceof Float32Array) return data;
  if (ArrayBuffer.isView(data) || Array.isArray(data)) {
    const out = Float32Array.from(data);
    for (let i = 0; i < data.length; i++) {
      if (typeof data[i] !== 'number' && typeof data[i] !== 'bigint') {
        throw new Error(`${what} must hold numbers; element ${i} is ${typeof data[i]}`);
      }
    }
    return out;
  }
  throw new Error(`${what} must be a Float32Array or an array of numbers`);
}

/** Token ids as an array, Int32Array or array of equal-length arrays (a batch) -> {ids, B, T}. */
export function toIds(ids) {
  const batch = Array.isArray(ids) && ids.length > 0 && (Array.isArray(ids[0]) || ArrayBuffer.isView(ids[0]));
  const rows = (batch ? ids : [ids]).map((row, b) => checkedBuffer(row, batch ? `batch row ${b}` : 'token ids'));
  const T = rows[0]?.length ?? 0;
  const flat = new Int32Array(rows.length * T);
  rows.forEach((row, b) => {
    if (!Array.isArray(row) && !ArrayBuffer.isView(row)) throw new Error(`batch row ${b} is not an array of token ids`);
    if (row.length !== T) throw new Error(`batch rows differ in length: row 0 has ${T} tokens, row ${b} has ${row.length}`);
    for (let t = 0; t < T; t++) {
      const id = row[t];
      if (typeof id !== 'number' || !Number.isInteger(id) || id < -2147483648 || id > 2147483647) {
        throw new Error(`token id ${String(id)} at position ${b * T + t} is not an integer token id`);
      }
      flat[b * T + t] = id;
    }
  });
  return { ids: flat, B: rows.length, T };
}

function copyStats(s) {
  return { mean: s.mean.slice(), var: s.var.slice() };
}

export function copyNorm(n) {
  return { in: copyStats(n.in), out: copyStats(n.out) };
}

export function copyBlockInspection(b, { ffnHidden = true, attention = true } = {}) {
  const out = {
    steps: b.steps.map((st) => ({ id: st.id, op: st.op, mean: st.mean.slice(), var: st.var.slice(), norm: st.norm.slice() })),
    norm1: copyNorm(b.norm1),
    norm2: copyNorm(b.norm2),
    residualNorm: b.residualNorm.slice(),
  };
  if (ffnHidden) {
    out.ffnHiddenPre = b.ffnHiddenPre.slice();
    out.ffnHiddenPost = b.ffnHiddenPost.slice();
  }
  if (attention) out.attnWeights = b.attnWeights.slice();
  return out;
}

// ---------------------------------------------------------------------------------------------------

const registry = new FinalizationRegistry((raw) => {
  try {
    raw.delete();
  } catch {
    /* already deleted */
  }
});

/** Base of every class wrapping a wasm object: explicit dispose(), `using` support, GC safety net. */
export class BaseHandle {
  #raw;
  #dependents = new Set();
  constructor(raw) {
    this.#raw = raw;
    registry.register(this, raw, this);
  }
  /** @internal Registers a handle that refers to this one's wasm object (a trainer of a GPT): it is disposed first. */
  _adopt(dependent) {
    this.#dependents.add(dependent);
    return dependent;
  }
  /** @internal */
  _release(dependent) {
    this.#dependents.delete(dependent);
  }
  /** @protected The live wasm object; throws once disposed. */
  get raw() {
    if (!this.#raw) throw new Error(`this ${this.constructor.apiName ?? this.constructor.name} has been disposed`);
    return this.#raw;
  }
  get disposed() {
    return !this.#raw;
  }
  /** Frees the wasm-side object. Safe to call twice. */
  dispose() {
    if (!this.#raw) return;
    for (const d of [...this.#dependents]) d.dispose();
    this.#dependents.clear();
    this.#owner?._release(this);
    registry.unregister(this);
    this.#raw.delete();
    this.#raw = null;
  }
  #owner = null;
  /** @internal Records the handle whose wasm object this one refers to. */
  _ownedBy(owner) {
    this.#owner = owner;
    owner._adopt(this);
    return this;
  }
  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    this.dispose();
  }
}

/** A wasm object with named parameters (a model or one of its components). */
export class Handle extends BaseHandle {
  /** [{name, shape}] in state_dict order. */
  parameters() {
    return this.raw.parameters();
  }
  get numParameters() {
    return this.raw.numParameters();
  }
  /** Replaces the parameter `name` with `data` (length must match its shape). */
  setParameter(name, data) {
    this.raw.setParameter(String(name), toFloat32(data, `parameter '${name}'`));
  }
  /** A copy of parameter `name`. */
  getParameter(name) {
    return this.raw.getParameter(String(name)).slice();
  }
  /** Sets every parameter present in `params` ({name: Float32Array|number[]}). */
  loadParameters(params) {
    for (const [name, data] of Object.entries(params)) this.setParameter(name, data);
  }
}

