// Runs every ```js example of the README as printed, importing the package by its name, and checks that
// each line it prints equals the example's `// prints:` comment, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(join(repo, 'README.md'), 'utf8');
const examples = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

test('the README has runnable examples', () => {
  assert.ok(examples.length >= 4, `only ${examples.length} examples`);
});

examples.forEach((code, n) => {
  const expected = [...code.matchAll(/\/\/ prints: (.*)$/gm)].map((m) => m[1].trim());
  test(`README example ${n + 1} prints what it says (${expected.length} lines)`, () => {
    assert.ok(expected.length > 0, 'an example with nothing to check');
    // Inside the repo, so that `import … from 'attention-wasm'` resolves to this package by its own name.
    const dir = mkdtempSync(join(repo, 'build', 'readme-'));
    try {
      const file = join(dir, 'example.mjs');
      writeFileSync(file, code);
      const printed = execFileSync('node', [file], { encoding: 'utf8' })
        .trimEnd()
        .split('\n')
        .map((l) => l.trim());
      assert.deepEqual(printed, expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
