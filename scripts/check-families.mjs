#!/usr/bin/env node
// npm run lint's family check: everything family-specific lives in src/js/model/families/ (one file per family), and
// the rest of the package and the page read the choices and labels of the normalized description (model.spec)
// instead of asking which family a model is. This fails on any comparison of a family's name or a model_type outside
// that folder, in src/js and web/src: `family === 'bert'`, `spec.modelType !== 'qwen2'`, `x === 'llama'`,
// `case 'gpt2':`, `['gpt2', 'llama'].includes(x)`. Prints each as file:line and exits 1.
// familyComparisons() needs no Node built-in, so tests import it (tests/js/model/families.test.js).

/** Comparison operators, longest first. */
const OPERATOR = /[!=]==?/g;
/** An operand that is a family's name or a model_type: `family`, `model.family`, `spec.modelType`, `config.model_type`. */
const FAMILY_WORD = /(?:^|[.?])(?:family|modelType|model_type)$/;
/** A literal or a member chain: an operand of a comparison. */
const OPERAND = /[\w$.?[\]'"`]/;

/** The source without its comments (a `//` after a ':' is kept: it is a URL's). */
function withoutComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:\\])\/\/.*$/gm, '$1');
}

/** The operand that ends just before `at` (and whether `typeof` precedes it), and the one starting at `at`. */
function operandBefore(text, at) {
  let end = at;
  while (end > 0 && text[end - 1] === ' ') end--;
  let start = end;
  while (start > 0 && OPERAND.test(text[start - 1])) start--;
  return { operand: text.slice(start, end), typeOf: /typeof\s+$/.test(text.slice(Math.max(0, start - 8), start)) };
}
function operandAfter(text, at) {
  let start = at;
  while (text[start] === ' ') start++;
  let end = start;
  while (end < text.length && OPERAND.test(text[end])) end++;
  return text.slice(start, end);
}

/**
 * The comparisons of a family's name or a model_type in a module's source, as { line, text }.
 * @param {string} source
 * @param {readonly string[]} names  every family's name and model_type
 */
export function familyComparisons(source, names) {
  const text = withoutComments(source);
  const isName = (operand) => names.some((name) => new RegExp(`^(['"\`])${name}\\1$`).test(operand));
  const found = new Set();
  const lineOf = (at) => text.slice(0, at).split('\n').length;
  for (const match of text.matchAll(OPERATOR)) {
    const left = operandBefore(text, match.index);
    const right = operandAfter(text, match.index + match[0].length);
    // whether a family or model_type is given at all (=== undefined, !== null) is no question of which
    const presence = /^(undefined|null)$/.test(right) || /^(undefined|null)$/.test(left.operand);
    const aboutFamily = !presence && ((!left.typeOf && FAMILY_WORD.test(left.operand)) || FAMILY_WORD.test(right));
    if (aboutFamily || isName(left.operand) || isName(right)) found.add(lineOf(match.index));
  }
  const alternatives = names.join('|');
  const other = [
    new RegExp(`\\bcase\\s+(['"\`])(?:${alternatives})\\1\\s*:`, 'g'),
    new RegExp(`\\[[^\\]]*(['"\`])(?:${alternatives})\\1[^\\]]*\\]\\s*\\.\\s*(?:includes|indexOf)\\(`, 'g'),
    /\bswitch\s*\([^)]*\b(?:family|modelType|model_type)\b/g,
  ];
  for (const pattern of other) for (const match of text.matchAll(pattern)) found.add(lineOf(match.index));
  const lines = source.split('\n');
  return [...found].sort((a, b) => a - b).map((line) => ({ line, text: lines[line - 1].trim() }));
}

/** Every family's name and model_type, from the family files. */
export function familyNames(families) {
  return [...new Set(Object.values(families).flatMap((table) => [table.name, ...table.modelTypes]))];
}

async function main() {
  const { readFileSync } = await import('node:fs');
  const { execFileSync } = await import('node:child_process');
  const { FAMILIES } = await import('../src/js/model/families/index.js');
  const root = new URL('../', import.meta.url);
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', 'src/js', 'web/src'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(
      (f) =>
        /\.m?js$/.test(f) &&
        !f.startsWith('src/js/model/families/') &&
        !/^src\/js\/(generated|wasm)\//.test(f) &&
        f !== 'src/js/inline.js',
    );
  const names = familyNames(FAMILIES);
  let failed = false;
  for (const file of files) {
    let source;
    try {
      source = readFileSync(new URL(file, root), 'utf8');
    } catch {
      continue; // listed by git but deleted in the work tree
    }
    for (const { line, text } of familyComparisons(source, names)) {
      console.error(`${file}:${line}: a family or model_type compared outside src/js/model/families/: ${text}`);
      failed = true;
    }
  }
  if (failed) {
    console.error(
      'check-families: read a choice or a label of the normalized description (spec.choices, spec.labels) instead, and put what is family-specific in its family file',
    );
    process.exit(1);
  }
  console.log(`families: ${files.length} modules, no family comparison outside src/js/model/families/`);
}

if (globalThis.process?.argv?.[1] && import.meta.url.endsWith(globalThis.process.argv[1].split(/[\\/]/).pop())) {
  await main();
}
