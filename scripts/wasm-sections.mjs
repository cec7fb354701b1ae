// Reading a WebAssembly binary's top-level structure, shared by the build (scripts/share-wasm-glue.mjs) and the
// download benchmark (bench/size.mjs): unsigned LEB128 numbers and the list of sections.

/** A reader of unsigned LEB128 numbers in `bytes` from offset `at`; `reader.at` is the offset after the last one read. */
export function lebReader(bytes, at) {
  const reader = {
    at,
    next() {
      let v = 0;
      for (let shift = 0; ; shift += 7) {
        const b = bytes[reader.at++];
        v += (b & 0x7f) * 2 ** shift;
        if (!(b & 0x80)) return v;
      }
    },
  };
  return reader;
}

/** Unsigned LEB128 encoding of `n`, as an array of bytes. */
export function leb(n) {
  const out = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n);
  return out;
}

/** [{id, start, body, end}] of a wasm binary's sections: the section's first byte, its contents' first byte, its end. */
export function wasmSections(bytes) {
  const out = [];
  const r = lebReader(bytes, 8); // after the magic number and version
  while (r.at < bytes.length) {
    const start = r.at;
    const id = bytes[r.at++];
    const size = r.next();
    out.push({ id, start, body: r.at, end: r.at + size });
    r.at += size;
  }
  return out;
}

const utf8 = new TextDecoder();
const readName = (bytes, r) => {
  const length = r.next();
  const text = utf8.decode(bytes.subarray(r.at, r.at + length));
  r.at += length;
  return text;
};
const nameBytes = (text) => {
  const b = new TextEncoder().encode(text);
  return [...leb(b.length), ...b];
};
const section = (id, body) => Uint8Array.from([id, ...leb(body.length), ...body]);

/** The import section `s` (an entry of wasmSections) as [{module, field, kind, desc}]: kind 0 function, 1 table,
 * 2 memory, 3 global; desc holds the description's bytes as they are. */
export function readImports(bytes, s) {
  const r = lebReader(bytes, s.body);
  const out = [];
  for (let i = r.next(); i > 0; i--) {
    const module = readName(bytes, r);
    const field = readName(bytes, r);
    const kind = bytes[r.at++];
    const from = r.at;
    if (kind === 0) r.next(); // type index
    else if (kind === 1 || kind === 2) {
      if (kind === 1) r.at++; // reference type
      const flags = bytes[r.at++];
      r.next();
      if (flags & 1) r.next();
    } else if (kind === 3) r.at += 2; // value type, mutability
    else throw new Error(`unknown import kind ${kind}`);
    out.push({ module, field, kind, desc: bytes.subarray(from, r.at) });
  }
  return out;
}

/** An import section (id 2, with its header) holding `imports` (readImports's entries). */
export function importSection(imports) {
  const body = [...leb(imports.length)];
  for (const { module, field, kind, desc } of imports) body.push(...nameBytes(module), ...nameBytes(field), kind, ...desc);
  return section(2, body);
}

/** The export section `s` as [{name, kind, index}]. */
export function readExports(bytes, s) {
  const r = lebReader(bytes, s.body);
  const out = [];
  for (let i = r.next(); i > 0; i--) {
    const name = readName(bytes, r);
    const kind = bytes[r.at++];
    out.push({ name, kind, index: r.next() });
  }
  return out;
}

/** An export section (id 7, with its header) holding `exports` (readExports's entries). */
export function exportSection(exports) {
  const body = [...leb(exports.length)];
  for (const { name, kind, index } of exports) body.push(...nameBytes(name), kind, ...leb(index));
  return section(7, body);
}
