// The checkpoints the instruments' tests run (instruments-*.test.js): GPT-2, LLaMA (GQA 4/2, RoPE) and Qwen2 (q/k/v
// biases, tied head), and the two ways a model holds its weights: resident in WebAssembly memory, or read at every run.
import { gpt2Fixture, llamaFixture } from './fixtures.js';

export const FAMILIES = [
  ['GPT-2', () => gpt2Fixture({ layers: 3, seed: 21 })],
  ['LLaMA (GQA 4/2, RoPE)', () => llamaFixture({ seed: 22 })],
  ['Qwen2 (q/k/v biases, tied head)', () => llamaFixture({ type: 'qwen2', seed: 23 })],
];

/** [name, loadModel's residentBytes]. */
export const RESIDENCY = [
  ['resident', undefined],
  ['read at every run', 0],
];
