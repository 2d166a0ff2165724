// The checkpoints the instruments' tests run (instruments-*.test.js): GPT-2, LLaMA (GQA 4/2, RoPE), Qwen2 (q/k/v
// biases, tied head) and Phi-3 (fused qkv_proj and gate_up_proj, GQA, partial rotary), and the two ways a model holds its weights: resident in WebAssembly memory, or read at every run.
import { gpt2Fixture, llamaFixture } from './fixtures.js';
import { phi3Fixture } from './fixtures-families.js';

export const FAMILIES = [
  ['GPT-2', () => gpt2Fixture({ layers: 3, seed: 21 })],
  ['LLaMA (GQA 4/2, RoPE)', () => llamaFixture({ seed: 22 })],
  ['Qwen2 (q/k/v biases, tied head)', () => llamaFixture({ type: 'qwen2', seed: 23 })],
  ['Phi-3 (fused qkv and gate_up, GQA 4/2, partial rotary)', () => phi3Fixture({ kvHeads: 2, partial: 0.5, seed: 24 })],
];

/** [name, loadModel's residentBytes]. */
export const RESIDENCY = [
  ['resident', undefined],
  ['read at every run', 0],
];
