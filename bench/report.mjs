// report.mjs — how a benchmark publishes what it measured: every line it reports is printed and also written into
// the benchmark's own section of docs/performance.md, stamped with the command that made it, the date and the
// machine. So each figure in the docs is written by the benchmark that measures it, and appears once.
// `--no-docs` (for ad-hoc runs, e.g. against an older tree) prints without touching the docs.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

const DOC = new URL('../docs/performance.md', import.meta.url);

/** The median of a list of numbers (the upper one of an even count). */
export const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

/** The machine a figure was measured on, in one line. */
function machine(extra) {
  const cores = cpus();
  return [`${cores.length} × ${cores[0]?.model.trim() ?? 'unknown CPU'}`, `Node ${process.versions.node}`, ...extra].join(', ');
}

/**
 * A report of section `section` of docs/performance.md, made by `command` (e.g. 'npm run bench:peers').
 * log() prints and keeps a line; publish() replaces the section's body between its markers
 * (<!-- bench:<section> --> … <!-- /bench:<section> -->) with the kept lines under a stamp line.
 */
export function report(section, command, { machine: extra = [] } = {}) {
  const lines = [];
  const print = console.log.bind(console);
  const write = !process.argv.includes('--no-docs');
  return {
    log(...parts) {
      const line = parts.join(' ');
      print(line);
      lines.push(line);
    },
    /** Runs fn (sync or async) with console.log going through log(): a benchmark's printing code kept as it is. */
    async capture(fn) {
      const original = console.log;
      console.log = (...parts) => this.log(...parts.map(String));
      try {
        return await fn();
      } finally {
        console.log = original;
      }
    },
    publish() {
      if (!write) return;
      const text = readFileSync(DOC, 'utf8');
      const start = `<!-- bench:${section} -->`;
      const end = `<!-- /bench:${section} -->`;
      const a = text.indexOf(start);
      const b = text.indexOf(end);
      if (a < 0 || b < a) throw new Error(`docs/performance.md has no ${start} … ${end} section for this benchmark`);
      const date = new Date().toISOString().slice(0, 10);
      const args = process.argv.slice(2).filter((x) => x !== '--no-docs').join(' ');
      const stamp = `_Made by \`${command}${args ? ` ${args}` : ''}\` on ${date} (${machine(extra)})._`;
      const body = [start, stamp, '', ...lines, end].join('\n');
      writeFileSync(DOC, text.slice(0, a) + body + text.slice(b + end.length));
      console.log(`\n(written to docs/performance.md, section "${section}")`);
    },
  };
}
