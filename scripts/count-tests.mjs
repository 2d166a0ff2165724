// Counts tests from the runners' machine-readable results: JUnit XML (ctest --output-junit, node's test runner
// --test-reporter=junit, the fuzz run as written by test-native.sh) and Vitest's JSON reporter.
//   node scripts/count-tests.mjs <file or folder>...   prints "<passed> <failed>"
// A skipped test counts as neither. Files of other kinds in a folder are ignored.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Passed and failed <testcase> elements of a JUnit document. */
export function countJunit(xml) {
  let passed = 0;
  let failed = 0;
  // Each test case up to its end: "/>" when it has no children, "</testcase>" otherwise.
  for (const [, body] of xml.matchAll(/<testcase\b((?:[^>"]|"[^"]*")*?\/>|[\s\S]*?<\/testcase>)/g)) {
    if (/<(failure|error)\b/.test(body)) failed++;
    else if (!/<skipped\b/.test(body) && !/status="(notrun|disabled)"/.test(body)) passed++;
  }
  return { passed, failed };
}

/** Passed and failed tests of Vitest's JSON report; a file that failed to load counts as one failure. */
export function countVitest(report) {
  const brokenFiles = report.testResults.filter((file) => file.status === 'failed' && !file.assertionResults.length);
  return { passed: report.numPassedTests, failed: report.numFailedTests + brokenFiles.length };
}

function filesIn(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => filesIn(join(path, name)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let passed = 0;
  let failed = 0;
  for (const file of process.argv.slice(2).flatMap(filesIn)) {
    let counts;
    if (file.endsWith('.xml')) counts = countJunit(readFileSync(file, 'utf8'));
    else if (file.endsWith('.json')) counts = countVitest(JSON.parse(readFileSync(file, 'utf8')));
    else continue;
    passed += counts.passed;
    failed += counts.failed;
  }
  console.log(`${passed} ${failed}`);
}
