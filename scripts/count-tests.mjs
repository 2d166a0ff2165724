// Counts tests from the runners' machine-readable results: JUnit XML (ctest --output-junit, node's test runner
// --test-reporter=junit, the fuzz run as written by test-native.sh) and Vitest's JSON reporter.
//   node scripts/count-tests.mjs <file or folder>...              prints "<passed> <failed>"
//   node scripts/count-tests.mjs --failures <file or folder>...   prints a line per failed test: its name and the
//                                                                 start of its message (test.sh's last lines)
// A skipped test counts as neither. Files of other kinds in a folder are ignored.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const MESSAGE_CHARS = 400; // of each failure's message in --failures

const unescapeXml = (text) =>
  text.replace(/&(lt|gt|quot|apos|amp|#\d+);/g, (_, e) =>
    e[0] === '#' ? String.fromCodePoint(Number(e.slice(1))) : { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' }[e],
  );
const oneLine = (text) => unescapeXml(String(text)).replace(/\s+/g, ' ').trim().slice(0, MESSAGE_CHARS);

/** Passed and failed <testcase> elements of a JUnit document, and the failed ones' names and messages. */
export function countJunit(xml) {
  let passed = 0;
  const failures = [];
  // Each test case up to its end: "/>" when it has no children, "</testcase>" otherwise.
  for (const [, body] of xml.matchAll(/<testcase\b((?:[^>"]|"[^"]*")*?\/>|[\s\S]*?<\/testcase>)/g)) {
    if (/<(failure|error)\b/.test(body)) {
      const name = body.match(/\bname="([^"]*)"/)?.[1] ?? '?';
      const where = body.match(/\bclassname="([^"]*)"/)?.[1];
      const message = body.match(/<(?:failure|error)\b[^>]*?\bmessage="([^"]*)"/)?.[1] ?? '';
      failures.push(`${where ? `${oneLine(where)} > ` : ''}${oneLine(name)}: ${oneLine(message)}`);
    } else if (!/<skipped\b/.test(body) && !/status="(notrun|disabled)"/.test(body)) passed++;
  }
  return { passed, failed: failures.length, failures };
}

/** Passed and failed tests of Vitest's JSON report (a file that failed to load counts as one failure), and names. */
export function countVitest(report) {
  const brokenFiles = report.testResults.filter((file) => file.status === 'failed' && !file.assertionResults.length);
  const failures = [
    ...report.testResults.flatMap((file) =>
      file.assertionResults
        .filter((test) => test.status === 'failed')
        .map((test) => `${file.name} > ${test.fullName}: ${oneLine(test.failureMessages?.[0] ?? '')}`),
    ),
    ...brokenFiles.map((file) => `${file.name}: did not load: ${oneLine(file.message ?? '')}`),
  ];
  return { passed: report.numPassedTests, failed: report.numFailedTests + brokenFiles.length, failures };
}

function filesIn(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => filesIn(join(path, name)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const listFailures = process.argv[2] === '--failures';
  let passed = 0;
  let failed = 0;
  const failures = [];
  for (const file of process.argv.slice(listFailures ? 3 : 2).flatMap(filesIn)) {
    let counts;
    if (file.endsWith('.xml')) counts = countJunit(readFileSync(file, 'utf8'));
    else if (file.endsWith('.json')) counts = countVitest(JSON.parse(readFileSync(file, 'utf8')));
    else continue;
    passed += counts.passed;
    failed += counts.failed;
    failures.push(...counts.failures);
  }
  if (listFailures) for (const line of failures) console.log(line);
  else console.log(`${passed} ${failed}`);
}
