// One source of truth for what crosses the core/JS boundary (src/core/abi.h): the generated JS is fresh, the
// built module reports the same lists, the JS memory formula equals the core's, every error code raised anywhere
// is listed once (and the .d.ts union and the guide's table agree), and every value the .d.ts declares exists.
import { describe, expect, it } from 'vitest';
import header from '../../src/core/abi.h?raw';
import generatedJs from '../../src/js/generated/abi.js?raw';
import generatedDts from '../../src/js/generated/abi.d.ts?raw';
import generatedModelJs from '../../src/js/generated/model-abi.js?raw';
import generatedModelDts from '../../src/js/generated/model-abi.d.ts?raw';
import indexDts from '../../src/js/index.d.ts?raw';
import guide from '../../docs/guide.md?raw';
import { abiHash, abiText, parseAbi, render, withErrorTable } from '../../scripts/gen-constants.mjs';
import * as abi from '../../src/js/generated/abi.js';
import * as modelAbi from '../../src/js/generated/model-abi.js';
import * as api from '../../src/js/index.js';
import { loadModule } from '../../src/js/loader.js';
import { loadModelModule } from '../../src/js/model/wasm.js';
import { coreScratchBytes } from '../../src/js/plan.js';
import { VARIANTS, seededRandom } from './reference.js';

const lists = parseAbi(header);
const codes = [...abi.ERROR_CODES];

const coreSources = import.meta.glob(['../../src/core/**/*.{h,cc}', '../../src/bindings/*.cc'], {
  query: '?raw',
  import: 'default',
  eager: true,
});
const jsSources = import.meta.glob(['../../src/js/**/*.js', '!../../src/js/inline.js', '!../../src/js/wasm/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
});
const withoutComments = (source) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

describe('the generated files', () => {
  it('are what scripts/gen-constants.mjs makes of abi.h now (run it, or the wasm build, after editing abi.h)', () => {
    const { js, dts, modelJs, modelDts } = render(lists);
    expect(generatedJs).toBe(js);
    expect(generatedDts).toBe(dts);
    expect(generatedModelJs).toBe(modelJs);
    expect(generatedModelDts).toBe(modelDts);
  });

  it('hold every list of abi.h, with the values the header gives', () => {
    expect(abi.QUERY_BLOCK).toBe(64);
    expect(abi.OUTPUT_PROJECTION_ROWS).toBe(64);
    expect(abi.CAUSAL).toEqual({ none: 0, topLeft: 1, bottomRight: 2 });
    expect(abi.MASK_KINDS).toEqual({ none: 0, boolean: 1, additive: 2 });
    expect(abi.DESCRIPTOR_SLOTS.maskDims + 4).toBe(abi.DESCRIPTOR_SLOTS.x);
    expect(Object.isFrozen(abi.ERROR_CODES)).toBe(true);
    // the model calls' slots follow the attention calls', which keep their indices
    expect(modelAbi.MODEL_SLOTS.dFf).toBe(abi.DESCRIPTOR_SLOT_COUNT);
    expect(Math.min(...Object.values(modelAbi.MODEL_SLOTS))).toBe(abi.DESCRIPTOR_SLOT_COUNT);
    expect(Math.max(...Object.values(modelAbi.MODEL_SLOTS))).toBe(modelAbi.MODEL_SLOT_COUNT - 1);
    expect(modelAbi.ACTIVATIONS).toEqual({ geluTanh: 0, geluErf: 1, siluGated: 2, geluTanhGated: 3 });
  });

  it('the parser refuses an entry it cannot read, instead of dropping it', () => {
    expect(() => parseAbi(header.replace('X(kKeyTile, 512)', 'X(kKeyTile, 2 * 256)'))).toThrow(/ATTENTION_CONSTANTS/);
  });
});

describe.each(VARIANTS)('the built module ($name build)', ({ name }) => {
  it("reports the hash of the lists that the generated JS holds (abi.h's abi_hash), the model's module too", async () => {
    expect(abi.ABI_HASH).toBe(abiHash(lists));
    expect((await loadModule(name))._abiHash()).toBe(abi.ABI_HASH);
    expect((await loadModelModule({ simd: name === 'simd' }))._abiHash()).toBe(abi.ABI_HASH);
  });

  it('the hash changes with any entry of any list: a renamed slot, a new value, a renamed code', () => {
    const changed = [
      header.replace('X(d_model, 1)', 'X(d_modell, 1)'),
      header.replace('X(mlp_hidden, 1)', 'X(mlp_hiddden, 1)'),
      header.replace('X(kKeyTile, 512)', 'X(kKeyTile, 256)'),
      header.replace('X(kGeluErf, 1)', 'X(kGeluErf, 3)'),
      header.replace('X(NOT_A_NUMBER,', 'X(NOT_A_NUMBR,'),
    ];
    const hashes = new Set([abi.ABI_HASH, ...changed.map((text) => abiHash(parseAbi(text)))]);
    expect(hashes.size).toBe(changed.length + 1);
    expect(abiText(lists)).toMatch(/^CONSTANTS:kQueryBlock=64,kKeyTile=512,.*;ERROR_CODES:NOT_A_TENSOR,.*,INTERNAL,;$/);
  });

  it('allocates the scratch that plan.js reckons with, over 2000 random problems', async () => {
    const module = await loadModule(name);
    const random = seededRandom(17);
    const size = (max) => 1 + Math.floor(random() ** 2 * max); // mostly small, some past the blocks and tiles
    for (let i = 0; i < 2000; i++) {
      const [lenQ, lenK, dK, dV] = [size(300), size(1500), size(80), size(80)];
      for (const returnWeights of [true, false]) {
        // Without weights the core streams (no steps either: returnSteps needs returnWeights).
        const core = module._sdpaScratchBytes(lenQ, lenK, dK, dV, returnWeights, !returnWeights);
        expect(coreScratchBytes(lenQ, lenK, dK, dV, returnWeights), `${[lenQ, lenK, dK, dV, returnWeights]}`).toBe(
          core,
        );
      }
    }
  });
});

describe('error codes', () => {
  it("every code raised in src/core, src/bindings and src/js is in abi.h's list", () => {
    const raised = new Set();
    for (const source of Object.values(coreSources)) {
      for (const [, code] of withoutComments(source).matchAll(/"([A-Z][A-Z0-9_]{2,})(?:\\t[^"]*)?"/g)) raised.add(code);
    }
    for (const source of Object.values(jsSources)) {
      for (const [, code] of withoutComments(source).matchAll(/'([A-Z][A-Z0-9_]{2,})'/g)) raised.add(code);
    }
    expect(raised.has('NULL_ARGUMENT')).toBe(true); // the scan sees the core
    expect(raised.has('TOO_LARGE')).toBe(true); // and the JS layer
    expect([...raised].filter((code) => !codes.includes(code))).toEqual([]);
  });

  it('the .d.ts union is the list, and index.d.ts re-exports it', () => {
    const union = [...generatedDts.matchAll(/^ {2}\| '([A-Z_]+)';?$/gm)].map(([, code]) => code);
    expect(union).toEqual(codes);
    expect(indexDts).toMatch(/import type \{ AttentionErrorCode \} from '\.\/generated\/abi\.js';/);
    expect(indexDts).not.toMatch(/\| 'NOT_A_TENSOR'/); // no second copy
  });

  it("the guide's table is the list, code by code and word for word", () => {
    expect(guide).toBe(withErrorTable(guide, lists));
    const rows = [...guide.matchAll(/^\| `([A-Z_]+)` +\| (.*) \|$/gm)].map(([, code, text]) => [code, text]);
    expect(rows).toEqual(lists.ERROR_CODES);
  });

  it('errors.js points to the list instead of keeping a table of its own', () => {
    expect(jsSources['../../src/js/errors.js']).toContain('src/core/abi.h');
    expect(jsSources['../../src/js/errors.js']).not.toMatch(/\| (NOT_A_TENSOR|LOAD_FAILED) /);
  });
});

describe('index.d.ts says what runs', () => {
  const byName = new Map(
    [...indexDts.matchAll(/^export (?:declare )?(class|function|const) (\w+)/gm)].map(([, kind, name]) => [name, kind]),
  );
  const declared = [...byName].map(([name, kind]) => ({ kind, name })); // overloads once

  it.each(declared)('$kind $name exists in index.js, as a $kind', ({ kind, name }) => {
    expect(name in api, `${name} is declared but not exported`).toBe(true);
    if (kind === 'class') {
      expect(typeof api[name]).toBe('function');
      expect(api[name].prototype?.constructor).toBe(api[name]);
    } else if (kind === 'function') {
      expect(typeof api[name]).toBe('function');
    } else {
      expect(api[name]).toBeDefined();
      expect(typeof api[name]).not.toBe('function');
    }
  });

  it('declares every value index.js exports, and no class that is only a type (ParallelAttention is an interface)', () => {
    expect(declared.map(({ name }) => name).sort()).toEqual(Object.keys(api).sort());
    expect(indexDts).toMatch(/^export interface ParallelAttention \{/m);
  });
});
