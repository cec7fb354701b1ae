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
