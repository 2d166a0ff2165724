// The package as a new user gets it, for the bundler and runtime tests: `npm pack` into build/, unpacked into
// `<folder>/node_modules/attention-wasm` (the package has no dependencies, so nothing else is installed). Apps
// live in subfolders of `<folder>` inside the repository, so that the bundlers and their plugins resolve from
// the repository's node_modules (as their own devDependencies would), and attention-wasm from the tarball.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/**
 * Runs a command to its end and returns its output (stdout). Throws with its output when it fails, or when it
 * printed anything on stderr and `quiet` is set (a bundler's warning is a finding).
 */
export function run(command, args, cwd, { env = {}, quiet = false } = {}) {
  const done = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  const failed = done.error || done.status !== 0 || (quiet && done.stderr.trim() !== '');
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
  return { folder, pkg, files: packed.files.map((f) => f.path) };
}
