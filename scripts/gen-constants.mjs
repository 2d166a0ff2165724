#!/usr/bin/env node
// Writes src/js/generated/abi.{js,d.ts} (and model-abi.{js,d.ts}, what only attention-wasm/model reads) from the
// X-macro lists of src/core/abi.h, the one source of the constants, enums, error codes and call descriptor layout
// that the JS layer shares with the core.
// Run by the WebAssembly build (CMakeLists.txt) whenever abi.h changes; `--check` exits 1 when the files on disk
// are stale. No dependencies; the parse and render functions need no Node built-in, so tests import them too.

/** Every `#define ATTENTION_<LIST>(X)` of the header as { LIST: [[name, value], …] }; throws on anything else. */
export function parseAbi(header) {
  const lists = {};
  const define = /^#define ATTENTION_(\w+)\(X\)((?:[^\n]*\\\n)*[^\n]*)$/gm;
  for (const [, list, body] of header.matchAll(define)) {
    const entries = [];
    const entry = /X\(\s*(\w+)\s*,\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\)/g;
    const rest = body.replace(entry, (_, name, value) => {
      entries.push([name, value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : Number(value)]);
      return '';
    });
    if (rest.replace(/\\\n/g, '').trim() !== '')
      throw new Error(`abi.h: ATTENTION_${list} holds something other than X(name, value) entries: ${rest.trim()}`);
    if (entries.length === 0) throw new Error(`abi.h: ATTENTION_${list} is empty`);
    lists[list] = entries;
  }
  const required = [
    'CONSTANTS',
    'CAUSAL',
    'MASK_KINDS',
    'ERROR_CODES',
    'CALL_KINDS',
    'DESCRIPTOR_SLOTS',
    'MODEL_SLOTS',
    ...HALF_WEIGHTS,
  ];
  for (const list of [...required, ...ENUMS]) {
    if (!lists[list]) throw new Error(`abi.h: no ATTENTION_${list}(X) list`);
  }
  return lists;
}

import { camelName, constantName, enumeratorName } from '../src/js/abi-names.js';

/** The enumerations of RoPE (abi.js) and of the model calls (model-abi.js), each `export const NAME = { … }`. */
const MODEL_ENUMS = ['NORM_KINDS', 'NORM_PLACEMENTS', 'ACTIVATIONS', 'WEIGHT_LAYOUTS', 'QKV_LAYOUTS', 'LAYER_STEPS'];
const ENUMS = ['ROPE_STYLES', ...MODEL_ENUMS];
const ENUM_DOCS = {
  ROPE_STYLES: 'Rotary position embeddings: which columns of a head pair up.',
  NORM_KINDS: "The model calls' norm.",
  NORM_PLACEMENTS:
    'Where a layer applies its norms: before each sub-block, after each residual sum, or two sub-blocks side by side.',
  ACTIVATIONS: "The MLP's activation (kSiluGated: down(silu(gate(x))·up(x))).",
  WEIGHT_LAYOUTS: "A checkpoint's matrices: [in, out] (GPT-2's Conv1D) or [out, in] (torch.nn.Linear).",
  QKV_LAYOUTS:
    "A fused q|k|v projection's columns: q | k | v (GPT-2's c_attn) or by head (GPT-NeoX's query_key_value).",
  LAYER_STEPS: "The steps of a layer that model.run's edits may change, named as its captures name them.",
};

export { camelName, constantName, enumeratorName };

/** The weights each half of a layer reads (model-abi.js), by slot: bits 1 << NORM_PLACEMENTS of the placements. */
const HALF_WEIGHTS = ['LAYER_ATTENTION_WEIGHTS', 'LAYER_MLP_WEIGHTS'];

// The lists in the order of abi.h's kAbiText.
const ABI_TEXT_LISTS = [
  'CONSTANTS',
  'CAUSAL',
  'MASK_KINDS',
  ...ENUMS,
  'CALL_KINDS',
  'DESCRIPTOR_SLOTS',
  'MODEL_SLOTS',
  ...HALF_WEIGHTS,
  'ERROR_CODES',
];

/** abi.h's kAbiText: "CONSTANTS:kQueryBlock=64,…;…;ERROR_CODES:NOT_A_TENSOR,…;" (error codes by name alone). */
export function abiText(lists) {
  return ABI_TEXT_LISTS.map(
    (list) =>
      `${list}:${lists[list].map(([name, value]) => (list === 'ERROR_CODES' ? `${name},` : `${name}=${value},`)).join('')};`,
  ).join('');
}

/** abi.h's abi_hash(): 32-bit FNV-1a of abiText (ASCII). */
export function abiHash(lists) {
  let hash = 2166136261;
  for (const char of abiText(lists)) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  return hash;
}

/** The JS layer's view of the lists: names converted, descriptor slots given their indices. */
export function jsAbi(lists) {
  const enumeration = (list) => Object.fromEntries(lists[list].map(([name, value]) => [enumeratorName(name), value]));
  const slots = {};
  let index = 0;
  let slotCount = 0; // the attention calls' slots; the model calls' follow them
  for (const [name, count] of [...lists.DESCRIPTOR_SLOTS, ...lists.MODEL_SLOTS]) {
    slots[camelName(name)] = index;
    index += count;
    if (name === lists.DESCRIPTOR_SLOTS.at(-1)[0]) slotCount = index;
  }
  return {
    constants: Object.fromEntries(lists.CONSTANTS.map(([name, value]) => [constantName(name), value])),
    causal: enumeration('CAUSAL'),
    maskKinds: enumeration('MASK_KINDS'),
    callKinds: enumeration('CALL_KINDS'),
    enums: Object.fromEntries(ENUMS.map((list) => [list, enumeration(list)])),
    errorCodes: lists.ERROR_CODES.map(([code]) => code),
    slots: Object.fromEntries(Object.entries(slots).filter(([, at]) => at < slotCount)),
    slotCount,
    modelSlots: Object.fromEntries(Object.entries(slots).filter(([, at]) => at >= slotCount)),
    modelSlotCount: index,
    halfWeights: Object.fromEntries(
      HALF_WEIGHTS.map((list) => [
        list,
        Object.fromEntries(lists[list].map(([name, bits]) => [camelName(name), bits])),
      ]),
    ),
  };
}

const quote = (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const object = (record) => {
  const lines = Object.entries(record).map(
    ([key, value]) => `  ${key}: ${typeof value === 'string' ? quote(value) : value},`,
  );
  return `Object.freeze({\n${lines.join('\n')}\n})`;
};
const HEADER =
  '// Generated by scripts/gen-constants.mjs from src/core/abi.h: do not edit. The build regenerates it.\n';

/** The generated files' text: { js, dts } (abi.js and abi.d.ts), { modelJs, modelDts } (model-abi.*). */
export function render(lists) {
  const abi = jsAbi(lists);
  const js = [
    HEADER,
    ...Object.entries(abi.constants).map(([name, value]) => `export const ${name} = ${value};\n`),
    '\n/** Causal masking, as the core numbers it. */\n',
    `export const CAUSAL = ${object(abi.causal)};\n`,
    "\n/** The user mask's element type, as the core numbers it. */\n",
    `export const MASK_KINDS = ${object(abi.maskKinds)};\n`,
    "\n/** Which entry point of the Embind layer a plan's kind runs. */\n",
    `export const CALL_KINDS = ${object(abi.callKinds)};\n`,
    `\n/** ${ENUM_DOCS.ROPE_STYLES} */\n`,
    `export const ROPE_STYLES = ${object(abi.enums.ROPE_STYLES)};\n`,
    // The codes only: what raises each stays in abi.h and the guide's table, so no page downloads the descriptions.
    "\n/** Every code an AttentionError can carry, in abi.h's order. */\n",
    `export const ERROR_CODES = Object.freeze([\n${abi.errorCodes.map((code) => `  ${quote(code)},`).join('\n')}\n]);\n`,
    "\n/** Int32 slots of the call descriptor, by the JS names of the plan's dims, options and buffers. */\n",
    `export const DESCRIPTOR_SLOTS = ${object(abi.slots)};\n`,
    `export const DESCRIPTOR_SLOT_COUNT = ${abi.slotCount};\n`,
    '\n/** abi_hash() of abi.h: what the module reports at load (loader.js refuses any other). */\n',
    `export const ABI_HASH = ${abiHash(lists)};\n`,
  ].join('');
  const dts = [
    HEADER,
    '\n/** Stable error codes of AttentionError. */\n',
    `export type AttentionErrorCode =\n${abi.errorCodes.map((code) => `  | '${code}'`).join('\n')};\n`,
    '\n',
    ...Object.keys(abi.constants).map((name) => `export const ${name}: number;\n`),
    ...['CAUSAL', 'MASK_KINDS', 'CALL_KINDS', 'ROPE_STYLES', 'DESCRIPTOR_SLOTS'].map(
      (name) => `export const ${name}: Readonly<Record<string, number>>;\n`,
    ),
    'export const ERROR_CODES: readonly AttentionErrorCode[];\n',
    'export const DESCRIPTOR_SLOT_COUNT: number;\n',
    'export const ABI_HASH: number;\n',
  ].join('');
  const modelJs = [
    HEADER,
    ...MODEL_ENUMS.flatMap((list) => [
      `\n/** ${ENUM_DOCS[list]} */\n`,
      `export const ${list} = ${object(abi.enums[list])};\n`,
    ]),
    "\n/** Int32 slots of a model call's descriptor after the attention calls' (abi.js's DESCRIPTOR_SLOTS). */\n",
    `export const MODEL_SLOTS = ${object(abi.modelSlots)};\n`,
    `export const MODEL_SLOT_COUNT = ${abi.modelSlotCount};\n`,
    ...HALF_WEIGHTS.flatMap((list) => [
      `\n/** The weights (by slot) that ${list === 'LAYER_MLP_WEIGHTS' ? "a layer's MLP call" : "a layer's attention call"} reads: bits 1 << NORM_PLACEMENTS of the placements it reads them under. */\n`,
      `export const ${list} = ${object(abi.halfWeights[list])};\n`,
    ]),
  ].join('');
  const modelDts = [
    HEADER,
    ...[...MODEL_ENUMS, 'MODEL_SLOTS'].map((name) => `export const ${name}: Readonly<Record<string, number>>;\n`),
    'export const MODEL_SLOT_COUNT: number;\n',
    ...HALF_WEIGHTS.map((name) => `export const ${name}: Readonly<Record<string, number>>;\n`),
  ].join('');
  return { js, dts, modelJs, modelDts };
}

/** The guide's table of error codes (docs/guide.md): one row per code, in the list's order. `--docs` writes it there. */
export function errorTable(lists) {
  const width = Math.max(...lists.ERROR_CODES.map(([code]) => code.length)) + 2;
  const rows = lists.ERROR_CODES.map(([code, description]) => `| ${`\`${code}\``.padEnd(width)} | ${description} |`);
  return [`| ${'code'.padEnd(width)} | raised for |`, `|${'-'.repeat(width + 2)}|------------|`, ...rows].join('\n');
}

const ERROR_TABLE = /^\| code +\| raised for +\|\n(?:\|.*\|\n)+/m;

/** A page's text with its error-code table replaced by errorTable(lists). */
export function withErrorTable(text, lists) {
  if (!ERROR_TABLE.test(text)) throw new Error('docs/guide.md: no table starting with | code | raised for |');
  return text.replace(ERROR_TABLE, `${errorTable(lists)}\n`);
}

async function main() {
  const { readFile, writeFile, mkdir } = await import('node:fs/promises');
  const root = new URL('../', import.meta.url);
  const lists = parseAbi(await readFile(new URL('src/core/abi.h', root), 'utf8'));
  const { js, dts, modelJs, modelDts } = render(lists);
  const outputs = [
    [new URL('src/js/generated/abi.js', root), js],
    [new URL('src/js/generated/abi.d.ts', root), dts],
    [new URL('src/js/generated/model-abi.js', root), modelJs],
    [new URL('src/js/generated/model-abi.d.ts', root), modelDts],
  ];
  if (process.argv.includes('--docs')) {
    const guide = new URL('docs/guide.md', root);
    await writeFile(guide, withErrorTable(await readFile(guide, 'utf8'), lists));
    return;
  }
  if (process.argv.includes('--check')) {
    const stale = [];
    for (const [url, text] of outputs) {
      const onDisk = await readFile(url, 'utf8').catch(() => null);
      if (onDisk !== text) stale.push(url.pathname);
    }
    if (stale.length) {
      console.error(`stale, run node scripts/gen-constants.mjs: ${stale.join(', ')}`);
      process.exit(1);
    }
    return;
  }
  await mkdir(new URL('src/js/generated/', root), { recursive: true });
  for (const [url, text] of outputs) await writeFile(url, text);
}

if (globalThis.process?.argv?.[1] && import.meta.url.endsWith(globalThis.process.argv[1].split(/[\\/]/).pop())) {
  await main();
}
