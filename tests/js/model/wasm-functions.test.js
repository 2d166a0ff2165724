// The model module's code as the engine compiles it: no huge function. Node 20's V8 compiles a WebAssembly function
// past ~8K virtual registers with its mid-tier register allocator (--turbo-use-mid-tier-regalloc-for-huge-functions),
// and wasm-opt inlines every function that has one caller: the GEMM kernels of model/linear.cc landed in one 24 KiB
// function with Eigen's GEMM, and GPT-2's forward ran 1.5× slower in Node than in Chromium (npm run bench:model).
// CMakeLists.txt keeps them apart; this test fails when a build inlines them back.
import { describe, expect, it } from 'vitest';
import { readUleb, sections } from '../../../scripts/wasm-notice.mjs';

const inBrowser = typeof window !== 'undefined';

/** The byte size of every function body of a module (its code section). */
function functionBodySizes(bytes) {
  const code = sections(bytes).find((s) => s.id === 10);
  let [count, at] = readUleb(bytes, code.payload[0]);
  const sizes = [];
  for (; count > 0; count--) {
    let size;
    [size, at] = readUleb(bytes, at);
    sizes.push(size);
    at += size;
  }
  return sizes;
}

describe.skipIf(inBrowser)("the model module's functions", () => {
  it.each(['simd', 'scalar'])('the %s build has no function body over 12 KiB', async (variant) => {
    const { readFile } = await import('node:fs/promises');
    const bytes = new Uint8Array(
      await readFile(new URL(`../../../src/js/wasm/model-${variant}.wasm`, import.meta.url)),
    );
    const sizes = functionBodySizes(bytes);
    expect(sizes.length).toBeGreaterThan(100);
    expect(Math.max(...sizes)).toBeLessThan(12 * 1024);
  });
});
