// The project's own import graph, read from the sources: static `import … from`, `export … from`, `import '…'` and
// literal dynamic `import('…')` all count (a module loaded on demand still depends on what it imports); bare
// specifiers ('attention-wasm', 'node:fs') are not ours. Shared by scripts/check-imports.mjs (circles, layer rules)
// and scripts/shipped-files.mjs (what the elements ship).
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const SPECIFIERS =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** The relative specifiers a module's text imports, comments left out (a JSDoc `import('…')` type is no import). */
export function relativeSpecifiers(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
  return [...code.matchAll(SPECIFIERS)].map((m) => m[1] ?? m[2] ?? m[3]).filter((spec) => spec.startsWith('.'));
}

/**
 * The project-relative paths (forward slashes) a module imports, among those `has` accepts.
 * @param {string} root  the repository
 * @param {string} file  project-relative
 * @param {(path: string) => boolean} has
 */
export function importsOf(root, file, has) {
  const out = new Set();
  for (const spec of relativeSpecifiers(readFileSync(join(root, file), 'utf8'))) {
    const target = normalize(join(dirname(file), spec)).replaceAll('\\', '/');
    if (has(target)) out.add(target);
  }
  return [...out];
}

/** The string leaves of package.json's exports (every condition), project-relative. */
export function exportTargets(pkg) {
  const out = [];
  const walk = (target) => {
    if (typeof target === 'string') out.push(target.replace(/^\.\//, ''));
    else if (target) Object.values(target).forEach(walk);
  };
  walk(pkg.exports);
  return out;
}
