// A model folder's tokenizer.json (and tokenizer_config.json), read with @huggingface/tokenizers, the Hub's
// tokenizers in plain JavaScript: a dependency of attention-wasm/model alone, imported only when a folder has a
// tokenizer.json. Tokens come back in two forms: the tokenizer's own (Ġ, ▁, ## and byte characters) and readable.
import { AttentionError } from '../errors.js';
import { readJson } from './sources.js';

// Where @huggingface/tokenizers comes from: its package name, which bundlers and import maps resolve. A page that
// loads these files raw with neither may install a fallback (installTokenizersFallback: the elements do, loading it
// from beside the package); when that fails too, the import map's error below says what to do.
let fallback = null;
const tokenizersModule = () =>
  import('@huggingface/tokenizers').catch((error) => {
    if (!fallback) throw error;
    return fallback(error);
  });

/** @internal Installs what loads @huggingface/tokenizers when its package name cannot be resolved. */
export function installTokenizersFallback(load) {
  fallback = load;
}

/** A JSON file's object, or BAD_FILE naming it. */
function parseJson(text, file) {
  try {
    const json = JSON.parse(text);
    if (json !== null && typeof json === 'object' && !Array.isArray(json)) return json;
  } catch (cause) {
    throw new AttentionError('BAD_FILE', `${file} is not JSON: ${String(cause?.message ?? cause).slice(0, 80)}`, {
      cause,
    });
  }
  throw new AttentionError('BAD_FILE', `${file} is not a JSON object`);
}

/**
 * The folder's tokenizer, or null when it has no tokenizer.json.
 * @returns {Promise<{ encode: (text: string) => { ids: number[], rawTokens: string[], tokens: string[] },
 *   readable: (id: number) => string } | null>}
 */
export async function loadTokenizer(folder) {
  if (!folder.names.includes('tokenizer.json')) return null;
  const tokenizerJson = await readJson(folder, 'tokenizer.json', parseJson);
  const tokenizerConfig = folder.names.includes('tokenizer_config.json')
    ? await readJson(folder, 'tokenizer_config.json', parseJson)
    : {};
  const { Tokenizer } = await tokenizersModule().catch((cause) => {
    throw new AttentionError(
      'LOAD_FAILED',
      `tokenizer.json needs @huggingface/tokenizers, which could not be imported (${String(cause?.message ?? cause).slice(0, 120)}): a bundler or Node resolves it from node_modules; a page that imports attention-wasm/model from a CDN maps it with an import map, e.g. <script type="importmap">{ "imports": { "@huggingface/tokenizers": "https://<cdn>/npm/@huggingface/tokenizers@0.2.0/dist/tokenizers.min.mjs" } }</script>; or leave tokenizer.json out and run token ids`,
      { cause },
    );
  });
  let tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  } catch (cause) {
    throw new AttentionError(
      'UNSUPPORTED_MODEL',
      `tokenizer.json (model ${JSON.stringify(String(tokenizerJson.model?.type ?? 'missing'))}) cannot be read: ${String(cause?.message ?? cause).slice(0, 120)}`,
      { cause },
    );
  }
  // One token as text: its bytes decoded (Ġ and ▁ as spaces), without WordPiece's ## of a word's continuation.
  const readable = (id) => tokenizer.decode([id], { skip_special_tokens: false }).replace(/^##/, '');
  return {
    encode(text) {
      const { ids, tokens } = tokenizer.encode(text);
      return { ids, rawTokens: tokens, tokens: ids.map(readable) };
    },
    readable,
  };
}
