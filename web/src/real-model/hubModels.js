// The real English models the "Real model" source offers by name, one click each: small checkpoints of the Hub that
// attention-wasm/model runs, with what a download of each costs. Pure: no DOM.

/**
 * The models offered, smallest first within a family. `mb`: the download, in MB (10^6 bytes): the checkpoint
 * (model.safetensors as the Hub lists it) and tokenizer.json, rounded. Pythia-70m's model.safetensors is float16
 * (141 MB of weights) with the causal-mask buffers of its 6 layers (25 MB), which attention-wasm/model never reads.
 */
export const HUB_MODELS = Object.freeze([
  Object.freeze({ id: 'openai-community/gpt2', name: 'GPT-2 small', about: 'GPT-2, 124 M parameters', mb: 550 }),
  Object.freeze({ id: 'distilbert/distilgpt2', name: 'distilgpt2', about: 'GPT-2, 82 M parameters', mb: 355 }),
  Object.freeze({ id: 'EleutherAI/pythia-70m', name: 'Pythia-70m', about: 'GPT-NeoX, 70 M parameters', mb: 168 }),
  Object.freeze({ id: 'HuggingFaceTB/SmolLM-135M', name: 'SmolLM-135M', about: 'LLaMA, 135 M parameters', mb: 270 }),
  Object.freeze({ id: 'Qwen/Qwen2.5-0.5B', name: 'Qwen2.5-0.5B', about: 'Qwen2, 494 M parameters', mb: 995 }),
]);

/** A download's size as the list shows it: "550 MB", "1.0 GB". */
export const downloadText = (mb) => (mb < 1000 ? `${mb} MB` : `${(mb / 1000).toFixed(1)} GB`);

/** What the list says of where the models come from (`host`: the origin Hub ids are read from). */
export const hubNote = (host) =>
  `Real English models, downloaded from the Hugging Face Hub (${host}) into this browser when you choose one, with a progress bar and Cancel; what is read is kept in this browser's cache for the next visit. Only the model's files are asked for: nothing you type is sent.`;
