// The kernels against the machine's own limits (a benchmark, not a test): builds and runs the wasm SIMD128 programs
// of bench/CMakeLists.txt in Node — read bandwidth and SIMD128 peak (blockscope_bench_bandwidth), the matrix kernels
// in GFLOP/s and % of those limits (blockscope_bench_kernels) and a 64-token forward pass by operation
// (blockscope_bench_prefill) — and the native Release build's bandwidth and prefill, and writes their output to
// docs/performance.md.   npm run bench:kernels [-- --no-native]
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { report } from './report.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const native = !process.argv.includes('--no-native');
const env = { ...process.env, NODE_PATH: ['/usr/share/nodejs', process.env.NODE_PATH].filter(Boolean).join(':') };
const PROGRAMS = ['blockscope_bench_bandwidth', 'blockscope_bench_kernels', 'blockscope_bench_prefill'];

const run = (file, args = []) => execFileSync(file, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 24 });
if (!existsSync(`${root}build/wasm-simd/Makefile`)) {
  console.error('bench:kernels: build/wasm-simd is not configured: run `bash scripts/build.sh wasm` first');
  process.exit(1);
}
run('cmake', ['--build', 'build/wasm-simd', '-j', '2', '--target', ...PROGRAMS]);
if (native) run('cmake', ['--build', 'build/release', '-j', '2', '--target', 'blockscope_bench_bandwidth', 'blockscope_bench_prefill']);

const out = report('kernels', 'npm run bench:kernels');
const block = (title, text) => out.log(`### ${title}\n\n\`\`\`\n${text.trimEnd()}\n\`\`\`\n`);
for (const p of PROGRAMS) block(`wasm SIMD128: ${p}`, run(process.execPath, [`build/wasm-simd/bench/${p}.js`]));
if (native) {
  for (const p of ['blockscope_bench_bandwidth', 'blockscope_bench_prefill']) block(`native Release: ${p}`, run(`build/release/bench/${p}`));
}
out.publish();
