// attention-wasm/inline and attention-wasm/io share one AttentionError and one Tensor: inline.js imports the
// package's errors.js and tensor.js (scripts/gen-inline.mjs leaves them out of the bundle), as io does, so an error
// or a tensor from either is `instanceof` the class the app imported from the other (or from the main entry).
import { expect, it } from 'vitest';
import * as inline from '../../src/js/inline.js';
import * as main from '../../src/js/index.js';
import { readNpy } from '../../src/js/io/index.js';
import { npyFile } from './fixtures/io/writers.js';

it('inline, io and the main entry share one AttentionError and one Tensor, instanceof both ways', async () => {
  expect(inline.AttentionError).toBe(main.AttentionError);
  expect(inline.Tensor).toBe(main.Tensor);
  let fromIo;
  try {
    readNpy('x.npy');
  } catch (error) {
    fromIo = error;
  }
  expect(fromIo.code).toBe('BAD_FILE');
  expect(fromIo).toBeInstanceOf(inline.AttentionError);
  const fromInline = await inline.createAttention({ simd: 'yes' }).catch((error) => error);
  expect(fromInline.code).toBe('BAD_OPTION');
  expect(fromInline).toBeInstanceOf(fromIo.constructor);
  const attn = await inline.createAttention();
  const x = readNpy(npyFile({ shape: [2, 2], values: [1, 0, 0, 1] }));
  expect(x).toBeInstanceOf(inline.Tensor);
  const { output } = attn.selfAttention(x, { wq: x, wk: x, wv: x });
  expect(output).toBeInstanceOf(x.constructor);
  expect(() => attn.selfAttention(x, { wq: x, wk: x, wv: [[1, 2, 3]] })).toThrow(fromIo.constructor);
});
