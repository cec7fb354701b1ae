// downloads.js — how the runtime reads a checkpoint's or tokenizer's bytes (fetch in a page or worker, fs for file:
// URLs in Node, File objects' streams), bounded: at most `limit` bytes whatever the server announces (a response
// without Content-Length, or compressed, is counted as it streams), no longer than `stallMs` without a byte, and
// cancellable with an AbortSignal. A download that breaks off is reported as a download error (how many bytes of how
// many arrived), never blamed on the file. No wasm here: blockscope.js hands the bytes on to the core.
import { isNode, nodeBuiltin } from './node-builtins.js';

/** The most a config.json (or tokenizer file) may be: real ones are a few KB (GPT-2's vocabulary, 1 MB). */
export const TEXT_LIMIT = 8 << 20;
/** How long a download may go without receiving a byte before it is stopped. */
export const STALL_MS = 30_000;

const MiB = (n) => `${(n / 2 ** 20).toFixed(1)} MiB`;

function abortError(signal, what) {
  const reason = signal.reason instanceof Error && signal.reason.name !== 'AbortError' ? `: ${signal.reason.message}` : '';
  return new Error(`the download of ${what} was cancelled${reason}`);
}

/**
 * Reads a URL's bytes, reporting progress; `into(total)` may take them as they come. Options: limit (bytes; the
 * largest answer accepted), signal (AbortSignal), stallMs, onProgress({loaded, total}), into, optional (resolve to
 * null when nothing is there — HTTP 404, or no such file — instead of failing: a file a directory may hold).
 */
export async function fetchBytes(url, { limit = TEXT_LIMIT, signal, stallMs = STALL_MS, onProgress, into, optional = false } = {}) {
  const what = url.href;
  if (signal?.aborted) throw abortError(signal, what);
  if (isNode && url.protocol === 'file:') {
    const [{ createReadStream }, { stat }, { Readable }] = await Promise.all([
      nodeBuiltin('fs'), nodeBuiltin('fs/promises'), nodeBuiltin('stream'),
    ]);
    const info = await stat(url).catch((err) => {
      if (optional && err.code === 'ENOENT') return null;
      throw err;
    });
    if (!info) return null;
    if (!info.isFile()) throw new Error(`${what} is not a regular file`);
    return readStream(Readable.toWeb(createReadStream(url)), info.size, { what, limit, signal, stallMs, onProgress, into });
  }
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let response;
    try {
      response = await withStall(fetch(url, { signal: controller.signal }), stallMs, controller, what);
    } catch (err) {
      if (signal?.aborted) throw abortError(signal, what);
      throw err;
    }
    if (optional && response.status === 404) {
      response.body?.cancel().catch(() => {});
      return null;
    }
    if (!response.ok) throw new Error(`could not fetch ${what}: HTTP ${response.status} ${response.statusText}`);
    // With Content-Encoding (a host that gzips or brotlis the file), Content-Length is the compressed size and the
    // body arrives decompressed: the real size is unknown until the end.
    const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
    const total = encoded ? 0 : Number(response.headers.get('content-length')) || 0;
    return await readStream(response.body, total, { what, limit, signal, stallMs, onProgress, into, controller });
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** `promise`, unless `ms` pass first (then the download is aborted with a message saying so). */
function withStall(promise, ms, controller, what) {
  let timer;
  const stalled = new Promise((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error(`no data from ${what} for ${Math.round(ms / 1000)} s: the download was stopped`);
      controller?.abort(err);
      reject(err);
    }, ms);
  });
  return Promise.race([promise, stalled]).finally(() => clearTimeout(timer));
}

/**
 * Reads a stream into memory (or, with `into(total)`, straight into a caller's buffer when total is known), at most
 * `limit` bytes, stopping after `stallMs` without data or when `signal` aborts.
 */
export async function readStream(stream, total, { what = 'the file', limit = Infinity, signal, stallMs = STALL_MS,
  onProgress, into, controller } = {}) {
  // A known size goes to the receiver first: the core's loader refuses an oversized file with its own message (the
  // CLI's); without a receiver, or when the size is unknown, the limit is checked here.
  const target = into && total ? into(total, null) : null;
  if (total > limit) throw new Error(`${what} is ${MiB(total)}, more than the ${MiB(limit)} it can be`);
  const chunks = [];
  let loaded = 0;
  const reader = stream.getReader();
  const stop = (err) => {
    reader.cancel().catch(() => {});
    controller?.abort(err);
    return err;
  };
  for (;;) {
    if (signal?.aborted) throw stop(abortError(signal, what));
    let step;
    try {
      step = await withStall(reader.read(), stallMs, controller, what);
    } catch (err) {
      if (signal?.aborted) throw stop(abortError(signal, what));
      if (/^no data from/.test(err.message)) throw stop(err);
      throw stop(new Error(`the download of ${what} broke off after ${loaded}${total ? ` of ${total}` : ''} bytes ` +
        `(${err.message}): try again`));
    }
    const { done, value } = step;
    if (done) break;
    if (loaded + value.length > limit) {
      throw stop(new Error(`${what} sent more than ${MiB(limit)}, the most it can be: the download was stopped`));
    }
    if (target) {
      if (loaded + value.length > total) throw stop(new Error(`${what} sent more than the announced ${total} bytes`));
      target.write(value, loaded);
    } else chunks.push(value);
    loaded += value.length;
    onProgress?.({ loaded, total: total || loaded });
  }
  if (target) {
    if (loaded !== total) throw new Error(`the download of ${what} ended after ${loaded} of ${total} bytes (the connection closed early): try again`);
    return target.result();
  }
  return into ? into(loaded, chunks) : concatChunks(chunks, loaded);
}

function concatChunks(chunks, n) {
  const out = new Uint8Array(n);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}
