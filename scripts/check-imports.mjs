// npm run lint's import check: no import circle among the project's own modules (src/, web/src/, scripts/,
// bench/, tests/). Static `import … from`, `export … from` and literal dynamic `import('…')` all count, since a
// module loaded on demand still depends on what it imports. Prints each circle as a → b → a and exits 1.
//   node scripts/check-imports.mjs [--graph]   (--graph prints every edge, for a look at the layering)
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { execFileSync } from 'node:child_process';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const roots = ['src', 'web/src', 'scripts', 'bench', 'tests'];
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', ...roots], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => /\.(m?js)$/.test(f) && !f.includes('/generated/') && !/\/wasm\//.test(f));
const known = new Set(files);

const specifiers =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** The project-relative files a module imports (bare and absolute specifiers are not ours). */
function importsOf(file) {
  const text = readFileSync(join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
  const out = new Set();
  for (const match of text.matchAll(specifiers)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (!spec.startsWith('.')) continue;
    const target = normalize(join(dirname(file), spec));
    if (known.has(target)) out.add(target);
  }
  return [...out];
}

const graph = new Map(files.map((f) => [f, importsOf(f)]));
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
if (circles.length) process.exit(1);
console.log(`imports: ${files.length} modules, no circle`);
