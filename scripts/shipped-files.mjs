// What the package ships, from its import graph: every module that package.json's exports reach by static or
// dynamic imports must be in its "files" (src/js's and web/src's alike: a folder left out of "files" breaks the
// installed package), and of web/src exactly the modules the elements reach and the declarations their exports
// name (a folder as one glob where all of its modules ship): one source of truth, the graph; prepublish.mjs and
// tests/package/shipped-files.test.mjs check the list against it.
//   node scripts/shipped-files.mjs          prints what is wrong (exit 1), or one line
//   node scripts/shipped-files.mjs --write  writes the web/src entries of package.json's "files" from the graph
import { readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportTargets, importsOf } from './import-graph.mjs';

const WEB = 'web/src/';

/** Each module the exports reach (entries included), with the module that imports it first (null: an entry). */
export function packageGraph(root, pkg) {
  const entries = exportTargets(pkg).filter((t) => t.endsWith('.js'));
  const isFile = (path) => existsSync(join(root, path)) && !path.endsWith('/');
  const importer = new Map(entries.map((e) => [e, null]));
  const queue = [...entries];
  while (queue.length) {
    const file = queue.shift();
    for (const next of importsOf(root, file, isFile)) {
      if (importer.has(next)) continue;
      importer.set(next, file);
      queue.push(next);
    }
  }
  return importer;
}

/** The files of web/src that ship: the modules the elements reach and the declarations the exports name. */
export function shippedWebFiles(root, pkg) {
  const modules = [...packageGraph(root, pkg).keys()].filter((f) => f.startsWith(WEB));
  const types = exportTargets(pkg).filter((t) => t.startsWith(WEB) && t.endsWith('.d.ts'));
  return [...new Set([...modules, ...types])].sort();
}

/** Whether `path` is one of the files an entry of package.json's files ships (a path, a folder, `*` or `**` globs). */
export function listedBy(entry, path) {
  const pattern = entry.replace(/^\.\//, '').replace(/\/$/, '');
  if (path === pattern || path.startsWith(`${pattern}/`)) return true;
  const source = pattern
    .split(/(\*\*\/?|\*)/)
    .map((part) =>
      part.startsWith('**') ? '(?:.*/)?' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`).test(path);
}

/** Every file under a project-relative folder, project-relative. */
function filesUnder(root, folder) {
  if (!existsSync(join(root, folder))) return [];
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${join(e.parentPath, e.name).slice(join(root).length).replace(/^\//, '')}`.replaceAll('\\', '/'));
}

/** The web/src entries of "files" for these shipped files: `folder/*.js` where every module of a folder ships. */
export function filesEntries(root, shipped) {
  const out = [];
  const byFolder = new Map();
  for (const f of shipped) byFolder.set(dirname(f), [...(byFolder.get(dirname(f)) ?? []), f]);
  for (const [folder, files] of byFolder) {
    const modules = readdirSync(join(root, folder)).filter((n) => n.endsWith('.js'));
    const whole = modules.length > 1 && modules.every((n) => files.includes(`${folder}/${n}`));
    if (whole) out.push(`${folder}/*.js`);
    for (const f of files) if (!(whole && f.endsWith('.js'))) out.push(f);
  }
  return out;
}

/** What is wrong with package.json's files and sideEffects against the elements' graph, as sentences. */
export function shippedFileProblems(root, pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))) {
  const problems = [];
  const graph = packageGraph(root, pkg);
  const listed = (path) => pkg.files.some((entry) => listedBy(entry, path));
  for (const [file, from] of graph) {
    if (!listed(file)) {
      const by = from ? `imported by ${from}` : "an entry of package.json's exports";
      const fix = file.startsWith(WEB) ? 'run node scripts/shipped-files.mjs --write' : 'add it or its folder there';
      problems.push(`${file} (${by}) is not in package.json's files: ${fix}`);
    }
  }
  const shipped = new Set(shippedWebFiles(root, pkg));
  for (const file of filesUnder(root, WEB)) {
    if (listed(file) && !shipped.has(file)) {
      problems.push(
        `package.json's files ship ${file}, which the elements do not import: run node scripts/shipped-files.mjs --write`,
      );
    }
  }
  for (const path of pkg.sideEffects ?? []) {
    if (!existsSync(join(root, path))) problems.push(`package.json's sideEffects names ${path}, which does not exist`);
  }
  return problems;
}

/** package.json with the web/src entries of its files written from the graph, where the first of them stood. */
export function withShippedFiles(root, pkg) {
  const at = pkg.files.findIndex((f) => f.startsWith(WEB));
  const rest = pkg.files.filter((f) => !f.startsWith(WEB));
  const entries = filesEntries(root, shippedWebFiles(root, pkg));
  const files = [...rest.slice(0, at < 0 ? rest.length : at), ...entries, ...rest.slice(at < 0 ? rest.length : at)];
  return { ...pkg, files };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const path = join(root, 'package.json');
  if (process.argv.includes('--write')) {
    const pkg = withShippedFiles(root, JSON.parse(readFileSync(path, 'utf8')));
    writeFileSync(path, `${JSON.stringify(pkg, null, 2)}\n`);
  }
  const problems = shippedFileProblems(root);
  for (const problem of problems) console.error(`shipped files: ${problem}`);
  if (problems.length) process.exit(1);
  console.log(
    `shipped files: package.json's files hold the ${shippedWebFiles(root, JSON.parse(readFileSync(path, 'utf8'))).length} files of web/src the elements ship, and no other`,
  );
}
