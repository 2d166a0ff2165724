// scripts/check-imports.mjs (npm run lint): the repository keeps the layer rules of scripts/import-rules.mjs, and an
// import planted against each rule, in a copy of web/src and src/js, fails the check with a line that names both
// modules, their layers and the rule. Run by node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const check = (root) =>
  spawnSync(process.execPath, [join(repo, 'scripts/check-imports.mjs'), ...(root ? ['--root', root] : [])], {
    cwd: repo,
    encoding: 'utf8',
  });

test('the repository keeps the layer rules', () => {
  const { status, stdout } = check();
  assert.equal(status, 0, stdout);
  assert.match(stdout, /the layer rules hold/);
});

/** A copy of web/src, src/js (not its builds) and package.json, in a new git repository, with `line` added to `file`. */
function plantedCopy(file, line) {
  const root = mkdtempSync(join(tmpdir(), 'attention-wasm-imports-'));
  cpSync(join(repo, 'web/src'), join(root, 'web/src'), { recursive: true });
  cpSync(join(repo, 'src/js'), join(root, 'src/js'), {
    recursive: true,
    filter: (path) => !/[\\/]wasm$|inline\.js$/.test(path),
  });
  cpSync(join(repo, 'package.json'), join(root, 'package.json'));
  spawnSync('git', ['init', '-q'], { cwd: root });
  appendFileSync(join(root, file), `\n${line}\n`);
  return root;
}

for (const [file, line, expected] of [
  [
    'web/src/shared/format.js',
    "import { el } from './dom.js';",
    "web/src/shared/format.js (a shared pure module) imports web/src/shared/dom.js (the page's DOM helper): a shared module is pure",
  ],
  [
    'web/src/lessons/gqa/gqa.js',
    "import { Heatmap } from '../../walk/heatmap.js';",
    "web/src/lessons/gqa/gqa.js (a lesson's pure module) imports web/src/walk/heatmap.js (a page module): a lesson's pure module imports only",
  ],
  [
    'web/src/lessons/rope/ropeLesson.js',
    "import { RopeView } from './ropeView.js';",
    "web/src/lessons/rope/ropeLesson.js (a lesson's pure module) imports web/src/lessons/rope/ropeView.js (a lesson's view)",
  ],
  [
    'web/src/elements/figure.js',
    "import { afterNextPaint } from '../app/latency.js';",
    'web/src/elements/figure.js (an element module) imports web/src/app/latency.js (a page module): the elements import only',
  ],
  [
    'web/src/elements/figure.js',
    "import { planSelfAttention } from '../../../src/js/plan.js';",
    "web/src/elements/figure.js (an element module) imports src/js/plan.js (the package's internal module)",
  ],
  [
    'web/src/main.js',
    "import { Tensor } from '../../src/js/tensor.js';",
    "web/src/main.js (a page module) imports src/js/tensor.js (the package's internal module): the page imports the package only through its entries",
  ],
]) {
  test(`a planted import fails the check: ${file} → ${line}`, () => {
    const root = plantedCopy(file, line);
    try {
      const { status, stdout } = check(root);
      assert.equal(status, 1, stdout);
      const lines = stdout.split('\n').filter((l) => l.startsWith('layer rule: '));
      assert.equal(lines.length, 1, stdout);
      assert.ok(lines[0].startsWith(`layer rule: ${expected}`), lines[0]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}

test('the copy as it is passes, so each failure above is its planted import', () => {
  const root = plantedCopy('web/src/main.js', '');
  try {
    const { status, stdout } = check(root);
    assert.equal(status, 0, stdout);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
