// npm run lint's import check, over the project's own modules (src/, web/src/, scripts/, bench/, tests/):
//   - no import circle: each is printed as a → b → a;
//   - the layer rules of scripts/import-rules.mjs (shared and pure lesson modules import no view and no DOM, the
//     elements only shared/, the lessons' pure modules and the package's entries, the page the package only through
//     its entries): each import that breaks one is printed with the rule.
// Static `import … from`, `export … from` and literal dynamic `import('…')` all count (scripts/import-graph.mjs).
// Exits 1 on any finding.
//   node scripts/check-imports.mjs [--graph] [--root DIR]   (--graph prints every edge, for a look at the layering;
//   --root checks another copy of the repository)
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { importsOf } from './import-graph.mjs';
import { layerViolations, packageEntries } from './import-rules.mjs';

const rootArg = process.argv.indexOf('--root');
const root = rootArg > 0 ? resolve(process.argv[rootArg + 1]) : join(import.meta.dirname, '..');
const roots = ['src', 'web/src', 'scripts', 'bench', 'tests'];
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', ...roots], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => /\.(m?js)$/.test(f) && !f.includes('/generated/') && !/\/wasm\//.test(f));
const known = new Set(files);

const graph = new Map(files.map((f) => [f, importsOf(root, f, (path) => known.has(path))]));
if (process.argv.includes('--graph')) {
  for (const [from, tos] of graph) for (const to of tos) console.log(`${from} -> ${to}`);
}

// Tarjan's strongly connected components: every component of more than one module (or a module importing
// itself) is a circle.
let index = 0;
const indices = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
function visit(v) {
  indices.set(v, index);
  low.set(v, index);
  index++;
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v)) {
    if (!indices.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indices.get(w)));
  }
  if (low.get(v) === indices.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v).includes(v)) circles.push(component);
  }
}
for (const v of graph.keys()) if (!indices.has(v)) visit(v);

/** One concrete path around a component, for the message: a → b → … → a. */
function cycleIn(component) {
  const members = new Set(component);
  const start = component[0];
  const path = [start];
  const seen = new Set([start]);
  let v = start;
  for (;;) {
    const next = graph.get(v).find((w) => members.has(w) && (w === start || !seen.has(w)));
    if (!next || next === start) return [...path, start];
    path.push(next);
    seen.add(next);
    v = next;
  }
}

for (const component of circles) {
  console.log(
    `import circle: ${cycleIn(component)
      .map((f) => relative('.', f))
      .join(' → ')}`,
  );
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const broken = layerViolations(graph, packageEntries(pkg));
for (const problem of broken) console.log(`layer rule: ${problem}`);
if (circles.length || broken.length) process.exit(1);
console.log(`imports: ${files.length} modules, no circle, the layer rules hold`);
