// Lists each stage's slowest tests against the timeout that bounds them, from the machine-readable results that
// `npm test` leaves in build/test-results/ (Vitest's JSON, JUnit XML). A test that takes over a quarter of its
// timeout on this run is marked: on a slower or busier machine it is the one that fails first.
//   node scripts/slowest-tests.mjs [results folder] [--top N]
// The timeouts are the ones the runners are given: Vitest's testTimeout (vitest.config.js), node --test's
// --test-timeout (scripts/test.sh), ctest's default for the native parts.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_TIMEOUTS } from '../tests/timeouts.mjs';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 5;
const folder = args.find((a, i) => !a.startsWith('--') && i !== topAt + 1) ?? 'build/test-results';

/** [stage, name, ms] of every test in a JUnit file. */
function junit(stage, file) {
  const xml = readFileSync(file, 'utf8');
  return [...xml.matchAll(/<testcase\b[^>]*?name="([^"]*)"[^>]*?time="([\d.]+)"/g)].map(([, name, time]) => [
    stage,
    name
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>'),
    Number(time) * 1000,
  ]);
}

const rows = [];
for (const stage of existsSync(folder) ? readdirSync(folder) : []) {
  const dir = join(folder, stage);
  if (!statSync(dir).isDirectory()) continue;
  for (const file of readdirSync(dir)) {
    const path = join(dir, file);
    if (file.endsWith('.xml')) rows.push(...junit(stage, path));
    else if (file === 'vitest.json') {
      for (const result of JSON.parse(readFileSync(path, 'utf8')).testResults) {
        for (const a of result.assertionResults)
          rows.push([stage, `${a.ancestorTitles.join(' > ')} > ${a.title}`, a.duration ?? 0]);
      }
    }
  }
}

const timeoutOf = (stage) => TEST_TIMEOUTS[stage === 'vitest' ? 'vitest' : stage === 'native' ? 'native' : 'node'];
let near = 0;
for (const stage of [...new Set(rows.map((r) => r[0]))].sort()) {
  const timeout = timeoutOf(stage);
  const slowest = rows
    .filter((r) => r[0] === stage)
    .sort((a, b) => b[2] - a[2])
    .slice(0, top);
  console.log(`${stage} (timeout ${timeout / 1000} s per test)`);
  for (const [, name, ms] of slowest) {
    const share = ms / timeout;
    if (share > 0.25) near++;
    console.log(
      `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${(share * 100).toFixed(0).padStart(3)} %${share > 0.25 ? ' !' : '  '}  ${name.slice(0, 110)}`,
    );
  }
}
console.log(near ? `${near} tests over a quarter of their timeout` : 'every test within a quarter of its timeout');
