// The package as a new user gets it, for the bundler and runtime tests: `npm pack` into build/, unpacked into
// `<folder>/node_modules/attention-wasm`, and its dependencies copied from the repository's node_modules. Apps
// live in subfolders of `<folder>` inside the repository, so that the bundlers and their plugins resolve from
// the repository's node_modules (as their own devDependencies would), and attention-wasm from the tarball.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/**
 * Runs a command to its end and returns its output (stdout). Throws with its output when it fails, or when it
 * printed anything on stderr and `quiet` is set (a bundler's warning is a finding), but what `ignore` matches.
 */
export function run(command, args, cwd, { env = {}, quiet = false, ignore } = {}) {
  const done = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  const stderr = ignore ? (done.stderr ?? '').replace(ignore, '') : done.stderr;
  const failed = done.error || done.status !== 0 || (quiet && stderr.trim() !== '');
  if (failed) {
    const output = `${done.stdout ?? ''}${done.stderr ?? ''}`.trim() || String(done.error ?? done.signal);
    throw new Error(`${[command, ...args].join(' ')} failed in ${cwd}:\n${output}`);
  }
  return done.stdout;
}

/**
 * Packs the repository into build/<name>/ and unpacks it as build/<name>/node_modules/attention-wasm.
 * @returns {{ folder: string, pkg: string, files: string[] }} the folder, the unpacked package, the tarball's files
 */
export function packInto(name) {
  const folder = join(repo, 'build', name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', folder], repo));
  const pkg = join(folder, 'node_modules/attention-wasm');
  mkdirSync(pkg, { recursive: true });
  run('tar', ['-xzf', join(folder, packed.filename), '-C', pkg, '--strip-components=1'], folder);
  // Its dependencies (attention-wasm/model's @huggingface/tokenizers), as npm would install them: from the
  // repository's node_modules, so that nothing is downloaded.
  const { dependencies = {} } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  for (const name of Object.keys(dependencies)) {
    cpSync(join(repo, 'node_modules', name), join(folder, 'node_modules', name), { recursive: true });
  }
  return { folder, pkg, files: packed.files.map((f) => f.path) };
}
