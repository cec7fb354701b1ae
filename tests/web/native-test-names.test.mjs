// The native tests' names must reach Catch through ctest intact: catch_discover_tests hands each TEST_CASE's name
// back as a test spec, and a ";" splits it (CMake lists), so the spec matches nothing and the test used to pass
// without running (tests/CMakeLists.txt now also runs every test with --warn NoTests). This refuses such names.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const dir = new URL('../unit/', import.meta.url);

test('no native TEST_CASE name holds a character ctest cannot pass back (";")', () => {
  const bad = [];
  let count = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpp'))) {
    for (const m of readFileSync(new URL(file, dir), 'utf8').matchAll(/TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"/g)) {
      count++;
      if (m[1].includes(';')) bad.push(`${file}: ${m[1]}`);
    }
  }
  assert.ok(count > 100, `found only ${count} TEST_CASEs`);
  assert.deepEqual(bad, []);
});
