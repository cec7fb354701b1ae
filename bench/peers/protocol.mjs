// The peer benchmark's worker protocol, shared by the JavaScript workers (bench/peers/README.md describes it):
// one JSON request per stdin line, one JSON reply per stdout line; a thrown error becomes {"error": message}.
// Also the helpers every worker answers with: the benchmark's token ids, process memory and logit checks.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Answers requests with `handlers[op](request)` until stdin closes or {"op": "quit"} arrives. */
export function serve(handlers) {
  // Anything a runtime prints must not corrupt the reply stream: console output goes to stderr.
  const out = process.stdout.write.bind(process.stdout);
  console.log = console.info = console.warn = (...a) => process.stderr.write(`${a.join(' ')}\n`);
  const rl = createInterface({ input: process.stdin });
  let queue = Promise.resolve();
  rl.on('line', (line) => {
    if (!line.trim()) return;
    queue = queue.then(async () => {
      let reply;
      try {
        const req = JSON.parse(line);
        if (req.op === 'quit') process.exit(0);
        const fn = handlers[req.op];
        if (!fn) throw new Error(`unknown op '${req.op}'`);
        reply = await fn(req);
      } catch (err) {
        reply = { error: String(err?.stack ?? err) };
      }
      out(`${JSON.stringify(reply)}\n`);
    });
  });
  rl.on('close', () => queue.then(() => process.exit(0)));
}

/**
 * CPU time this process has used (user + system, all threads), in ms. Next to a wall-clock time it shows
 * whether a slow round did more work or was not scheduled: on a shared machine wall time alone can look like
 * "two speeds" while the CPU time stays put.
 */
export function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** VmRSS and VmHWM (peak RSS) of this process, in bytes. */
export function processMemory() {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak_rss: kb('VmHWM') };
}

/** The benchmark's token ids for a forward over T positions (bench_forward.cpp's pattern). */
export function benchIds(T, vocab) {
  return Int32Array.from({ length: T }, (_, t) => (t * 7919) % vocab);
}

/** max |logits - reference| (NaN if any logit is not finite); reference is a raw float32 file. */
export function maxAbsDiff(logits, referencePath) {
  const bytes = readFileSync(referencePath);
  const ref = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  if (ref.length !== logits.length) throw new Error(`reference has ${ref.length} floats, logits ${logits.length}`);
  let max = 0;
  for (let i = 0; i < ref.length; i++) {
    const d = Math.abs(logits[i] - ref[i]);
    if (!(d <= max)) max = Number.isNaN(d) ? NaN : d;
    if (Number.isNaN(max)) break;
  }
  return Number.isNaN(max) ? 'NaN' : max;
}

/** Index of the first maximum of `row` (greedy decoding, as Blockscope's sample_token picks it). */
export function argmax(row) {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}
