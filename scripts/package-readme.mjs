// package-readme.mjs — the package's README: npm always packs the root README.md, which is the repository's (for the
// people who build Blockscope), so `npm pack` swaps in docs/package-README.md (for the people who install it) and puts
// the repository's back afterwards (package.json prepack / postpack).
//   node scripts/package-readme.mjs swap      README.md := docs/package-README.md (the original kept aside)
//   node scripts/package-readme.mjs restore   README.md := the original again (nothing to do if it was not swapped)
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);
const README = new URL('README.md', ROOT);
const PACKAGE = new URL('docs/package-README.md', ROOT);
// Kept outside what npm packs (it ships every README* at the root whatever "files" says): build/ is gitignored.
const KEPT = new URL('build/README.repository.md', ROOT);

const command = process.argv[2];
if (command === 'swap') {
  // A swap left over from a pack that failed before postpack: put the original back first.
  if (existsSync(KEPT)) renameSync(KEPT, README);
  if (readFileSync(README, 'utf8') !== readFileSync(PACKAGE, 'utf8')) {
    mkdirSync(new URL('.', KEPT), { recursive: true });
    renameSync(README, KEPT);
    copyFileSync(PACKAGE, README);
  }
} else if (command === 'restore') {
  if (existsSync(KEPT)) renameSync(KEPT, README);
} else {
  console.error('usage: node scripts/package-readme.mjs swap|restore');
  process.exit(2);
}
