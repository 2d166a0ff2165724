#!/usr/bin/env node
// The table of the elements' attributes in docs/elements.md, made from the list the elements themselves read
// (web/src/elements/attributes.js: SETTINGS, then OWN_ATTRIBUTES, in that order) and the words of each attribute below,
// kept here so that they add nothing to what a post downloads. An attribute of the list without words here, or
// words for an attribute the list lacks, is an error.
//   node scripts/gen-attributes.mjs            prints the table
//   node scripts/gen-attributes.mjs --docs     writes it into docs/elements.md (tests/readme/attributes.test.mjs checks it)
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { OWN_ATTRIBUTES, SETTINGS, propertyName } from '../web/src/elements/attributes.js';
import { WORDS } from '../web/src/elements/display.js';
import { ELEMENT_LIMITS } from '../web/src/elements/elementLimits.js';
import { VIEWS } from '../web/src/elements/instruments/instrumentSettings.js';
import { EXAMPLES } from '../web/src/shared/examples.js';

const code = (words) => words.map((w) => `\`${w}\``).join(', ');
const L = ELEMENT_LIMITS;

/** What each attribute takes, by name. */
export const ATTRIBUTE_DOCS = {
  example: `one of the page's named examples: ${code(EXAMPLES.map((e) => e.id))}`,
  state:
    'a permalink copied from the page (the whole URL or its `#…`); `await element.permalink()` gives the permalink of what is shown',
  sentence: `the tokens, split at spaces (at most ${L.n})`,
  seed: 'the seed of the random embeddings and weights, 0 to 2³²−1 (default 42)',
  'd-model': `d_model, the size of each token's vector (at most ${L.dModel})`,
  'd-k': `d_k, the size of each head's queries and keys (heads·d_k ≤ ${L.headsWidth})`,
  'd-v': `d_v, the size of each head's values (heads·d_v ≤ ${L.headsWidth})`,
  heads: `the number of heads (at most ${L.numHeads})`,
  head: 'the head shown, counted from 0 (default 0)',
  causal: 'no looking ahead: each token attends to itself and the tokens before it',
  temperature: `${L.temperatureMin} to ${L.temperatureMax} (1 is standard attention)`,
  scale: 'divide the scores by √d_k (on by default; `scale="false"` turns it off)',
  positions: 'add sinusoidal positional encodings to X',
  'kv-heads': "the grouped-query lesson's kv heads (dividing `heads`)",
  source: "the cross-attention lesson's second sentence (keys and values)",
  precision: `decimals shown, 0 to ${L.precision}`,
  src: "a `.json` file of exact numbers, or a `.npz` / `.safetensors` file (arrays `x`, `wq`, `wk`, `wv`, `wo`, `mask`, read through `attention-wasm/io`: their shapes are checked against the element's limits before any value is read, and no other array is read)",
  readonly: 'no editing',
  caption:
    'a caption under the figure (text only: markup shows as typed); it also names the figure for screen readers and goes into its export',
  highlight:
    "cells to point at, as `query → key` (or `->`): a token's text, its position `#3` (from 1) or `*` for all; `it → animal` marks one cell, `it → *` a row, `* → animal` a column; several separated by `;`. Marked in the heatmaps and the query × key tables, and in the export",
  export: `buttons that download the figure (the heatmap; an explorer's is the weights of the head shown; with \`view\`, the instrument's grids): ${code(WORDS.export)}, or the attribute alone for both (the methods \`toSVG()\` and \`toPNG(scale)\` need no attribute)`,
  model:
    'a real model: `builtin` (the 2-layer induction model shipped in the package), a folder URL (`https://…/`, `./folder/`, `/folder/`) or a Hub model id (`openai-community/gpt2`); read through `attention-wasm/model`, which loads only then. Elements naming the same model share one load',
  layer: 'with `model`: the layer shown, counted from 0 (default 0)',
  ids: 'with `model`: token ids instead of `sentence` (for a checkpoint without `tokenizer.json`, or exact tokens), e.g. `464 3797 3332`',
  ablate:
    'with `model`: heads switched off (their output zeroed), as `layer.head` counted from 0, space-separated: `1.0 1.2`',
  next: "with `model`: show the model's prediction of the next token, the 5 most probable",
  view: `an instrument instead of the attention figure, on the shipped model unless \`model\` names another: ${code(VIEWS)} (the logit lens, direct logit attribution, activation patching, head detector scores, the loss per token); loaded only for an element with \`view\``,
  target:
    'with `view`: the token followed by the lens, attributed, or patched for: a word the model reads as one token (GPT-2 writes its leading space: `" Mary"`) or a token id; default the predicted token',
  against:
    'with `view="attribution"` or `"patching"`: a second token, so that the logit difference `target` − `against` is attributed or patched for (default for patching: the corrupted prompt\'s top token)',
  position:
    'with `view="lens"`, `"attribution"` or `"patching"`: the position followed, attributed or measured, counted from 0 (default the last)',
  corrupted:
    'with `view="patching"`: the corrupted prompt, as many tokens as the sentence (default, for the default sentence: its first `red` changed to `green`)',
  steps: 'the steps shown, in order',
  hide: `paragraphs left out: ${code(WORDS.hide)} (the random-weights notice), space-separated`,
  'model-view': 'with `model`: every layer × head as a small heatmap (the model view) instead of one head',
  values: `what the heatmap shows: ${code(WORDS.values)} (the scaled, masked scores that softmax turns into weights; default \`weights\`)`,
};

const SHORT = { 'attention-explorer': 'explorer', 'attention-heatmap': 'heatmap' };

/** The table, one row per attribute in the list's order; throws when the list and ATTRIBUTE_DOCS differ. */
export function attributeTable() {
  const rows = [
    ...SETTINGS.map((name) => [name, '']),
    ...Object.entries(OWN_ATTRIBUTES).flatMap(([tag, names]) => names.map((name) => [name, ` (${SHORT[tag]})`])),
  ];
  const listed = new Set(rows.map(([name]) => name));
  const missing = [...listed].filter((name) => !(name in ATTRIBUTE_DOCS));
  const extra = Object.keys(ATTRIBUTE_DOCS).filter((name) => !listed.has(name));
  if (missing.length || extra.length)
    throw new Error(
      `attributes without words: ${missing.join(', ') || 'none'}; words for no attribute: ${extra.join(', ') || 'none'}`,
    );
  return [
    '| attribute | property | value |',
    '|---|---|---|',
    ...rows.map(([name, only]) => `| \`${name}\`${only} | \`${propertyName(name)}\` | ${ATTRIBUTE_DOCS[name]} |`),
  ].join('\n');
}

const TABLE = /^\| attribute \| property \| value \|\n(?:\|.*\|\n)+/m;

/** The page's text (docs/elements.md) with its attribute table replaced by attributeTable(). */
export function withAttributeTable(text) {
  if (!TABLE.test(text)) throw new Error('docs/elements.md: no table starting with | attribute | property | value |');
  return text.replace(TABLE, `${attributeTable()}\n`);
}

/** Where the table is. */
export const DOCS = new URL('../docs/elements.md', import.meta.url);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--docs')) await writeFile(DOCS, withAttributeTable(await readFile(DOCS, 'utf8')));
  else console.log(attributeTable());
}
