// Compiled with tsc against src/js/index.d.ts through the package's own name: the README's examples must
// type-check, and the @ts-expect-error lines must stay errors.
import { AttentionError, createAttention, MAX_CALL_BYTES, simdSupported, Tensor } from 'attention-wasm';
import type { AttentionErrorCode, MultiHeadResult, SelfAttentionLayer, SelfAttentionResult } from 'attention-wasm';

const attn = await createAttention();
const simd: boolean = attn.simd && simdSupported();
const sets: string = attn.instructionSets;
const backend: 'wasm-simd128' | 'scalar' = attn.kernelBackend;
const limit: number = MAX_CALL_BYTES + attn.memoryBytes + attn.heapBytesInUse();

const q = [
  [1, 0],
  [0, 1],
];
const { output, weights } = attn.scaledDotProductAttention(q, q, q, { causal: true });
const first: number = output.data[0] + (weights?.data[0] ?? 0);
const nested: number[][] = output.toArray();

const s: SelfAttentionResult = attn.selfAttention(
  q,
  {
    wq: q,
    wk: q,
    wv: [
      [1, 2],
      [3, 4],
    ],
  },
  { causal: false },
);
const steps = [s.q, s.k, s.v, s.rawScores, s.scaledScores, s.scores, s.weights, s.output];

const m: MultiHeadResult = attn.multiHeadAttention(
  { data: new Float32Array(8 * 16), shape: [8, 16] },
  {
    wq: { data: new Float32Array(256), shape: [16, 16] },
    wk: { data: new Float64Array(128), shape: [16, 8] },
    wv: { data: new Array(128).fill(0), shape: [16, 8] },
    wo: { data: new Float32Array(128), shape: [8, 16] },
    numHeads: 4,
    numKvHeads: 2,
  },
  {
    causal: 'bottom-right',
    mask: { data: new Uint8Array(64), shape: [8, 8] },
    scale: 0.5,
    returnWeights: true,
    returnSteps: false,
  },
);
const perHead: Tensor = m.heads;
const c = attn.crossAttention(
  q,
  [[1, 2, 3]],
  {
    wq: q,
    wk: [
      [1, 0],
      [0, 1],
      [1, 1],
    ],
    wv: [[1], [2], [3]],
  },
  { mask: [[true], [false]] },
);

try {
  attn.scaledDotProductAttention(q, q, q, {
    mask: [
      [0, -Infinity],
      [0, 0],
    ],
  });
} catch (error) {
  if (error instanceof AttentionError) {
    const code: AttentionErrorCode = error.code;
  }
}

// @ts-expect-error unknown option
attn.scaledDotProductAttention(q, q, q, { casual: true });
// @ts-expect-error causal takes only the documented modes
attn.scaledDotProductAttention(q, q, q, { causal: 'yes' });
// @ts-expect-error multiHeadAttention needs numHeads
attn.multiHeadAttention(q, { wq: q, wk: q, wv: q });
// @ts-expect-error strings are not tensors
attn.scaledDotProductAttention('q', q, q);
// @ts-expect-error a single-head result has no heads
s.heads;

const layer: SelfAttentionLayer = await attn.prepareSelfAttention({ wq: q, wk: q, wv: q, numHeads: 1 });
const fromLayer: Tensor = layer.run(q, { causal: true }).output;
const projectedRows: number = layer.projectedRows;
layer.free();
// @ts-expect-error prepareSelfAttention gives a Promise of the layer
attn.prepareSelfAttention({ wq: q, wk: q, wv: q }).run(q);
// @ts-expect-error projectedRows is read-only
layer.projectedRows = 3;

const parallel = await createAttention({ workers: 2 });
const workerCount: number = parallel.workers;
const parallelBackend: 'wasm-simd128' | 'scalar' = parallel.kernelBackend;
const fromWorkers: Tensor = (await parallel.scaledDotProductAttention(q, q, q)).output;
await parallel.terminate();
// @ts-expect-error a ParallelAttention's results are Promises
parallel.selfAttention(q, { wq: q, wk: q, wv: q }).output;

export {
  fromLayer,
  projectedRows,
  workerCount,
  parallelBackend,
  fromWorkers,
  simd,
  sets,
  limit,
  first,
  nested,
  steps,
  perHead,
  c,
};

// attention-wasm/io: files read into Tensors that the API accepts.
import { openNpz, openSafetensors, readNpy, readNpz, readSafetensors } from 'attention-wasm/io';
import type { NpzFile, SafetensorsFile } from 'attention-wasm/io';
const fromNpy: Tensor = readNpy(new Uint8Array(0));
const fromNpz: Record<string, Tensor> = await readNpz(new Blob([]), { names: ['q'] });
const fromSafetensors: Tensor | undefined = readSafetensors(new ArrayBuffer(0)).wq;
const opened: SafetensorsFile = await openSafetensors(new Blob([]));
const listed: string = `${opened.tensors[0].name} ${opened.tensors[0].dtype} ${opened.tensors[0].shape.join('×')}`;
attn.selfAttention(fromNpy, { wq: await opened.read('wq'), wk: fromNpz.k, wv: fromNpy });
// @ts-expect-error readNpy is synchronous: a Blob must be read into bytes first
readNpy(new Blob([]));
// Bool and integer arrays: named by the type parameter, and taken as boolean masks.
const npz: NpzFile = await openNpz(new Uint8Array(0));
const shapes: number[][] = npz.arrays.map((entry) => entry.shape);
const boolMask = readNpy<Uint8Array>(new Uint8Array(0));
const int64Mask = await npz.read<BigInt64Array>('attention_mask');
const ids: Int32Array = readNpy<Int32Array>(new Uint8Array(0)).data;
attn.scaledDotProductAttention(fromNpy, fromNpy, fromNpy, { mask: boolMask });
attn.scaledDotProductAttention(fromNpy, fromNpy, fromNpy, { mask: int64Mask });
attn.scaledDotProductAttention(fromNpy, fromNpy, fromNpy, { mask: { data: Int32Array.of(1, 0), shape: [2] } });
const int64Json: string[] = int64Mask.toJSON().data;
// Writing named tensors (Tensors, typed arrays, Maps or pairs) as .npz and .safetensors bytes.
import { writeNpz, writeSafetensors } from 'attention-wasm/io';
import type { NamedTensors } from 'attention-wasm/io';
const toWrite: NamedTensors = { q: fromNpy, ids, mask: int64Mask, wide: { data: new Float64Array(2), shape: [1, 2] } };
const npzBytes: Uint8Array = writeNpz(toWrite);
const safetensorsBytes: Uint8Array = writeSafetensors(new Map([['q', fromNpy]]), { metadata: { format: 'pt' } });
writeNpz([
  ['q', fromNpy],
  ['k', new Float32Array(3)],
]);
// @ts-expect-error a bool Tensor (Uint8Array data) is not written
writeNpz({ mask: boolMask });
// @ts-expect-error metadata holds strings only
writeSafetensors({}, { metadata: { layers: 2 } });
// @ts-expect-error integer data is a mask, not a float input
attn.scaledDotProductAttention(ids, fromNpy, fromNpy);
// @ts-expect-error a Tensor of integer data is not a float input either
attn.selfAttention(readNpy<Int32Array>(new Uint8Array(0)), { wq: fromNpy, wk: fromNpy, wv: fromNpy });

// Tensors of neighbouring libraries: onnxruntime-web's (and transformers.js's) { data, dims } as they are, and
// a result as JSON.
import * as ort from 'onnxruntime-web';
const fromOrt = new ort.Tensor('float32', new Float32Array(4), [2, 2]);
attn.selfAttention(fromOrt, { wq: fromOrt, wk: { data: [1, 0, 0, 1], dims: [2, 2] }, wv: fromOrt });
const asJson: { shape: number[]; data: number[] } = fromNpy.toJSON();
attn.selfAttention(JSON.parse(JSON.stringify(fromNpy)) as { shape: number[]; data: number[] }, {
  wq: asJson,
  wk: asJson,
  wv: asJson,
});
// @ts-expect-error dims must be numbers
attn.selfAttention({ data: new Float32Array(4), dims: ['2', '2'] }, { wq: asJson, wk: asJson, wv: asJson });

// RoPE: the option, and the rotated q and k as results.
const rotated = attn.multiHeadAttention(
  q,
  { wq: q, wk: q, wv: q, numHeads: 1 },
  { rope: { theta: 1e4, dim: 2, style: 'half' } },
);
const rotatedSteps: [Tensor | undefined, Tensor | undefined] = [rotated.qRotated, rotated.kRotated];
attn.scaledDotProductAttention(q, q, q, { rope: { positions: new Int32Array([3, 4]), style: 'interleaved' } });
// @ts-expect-error the styles are 'half' and 'interleaved'
attn.selfAttention(q, { wq: q, wk: q, wv: q }, { rope: { style: 'neox' } });
// @ts-expect-error crossAttention takes no rope
attn.crossAttention(q, q, { wq: q, wk: q, wv: q }, { rope: { theta: 10 } });

// attention-wasm/model: a model from its files, its results, and a layer's weights for selfAttention.
import { SUPPORTED_FAMILIES, attentionTensorsOf, attentionWeightsFrom, loadModel } from 'attention-wasm/model';
import type {
  HeadCapture,
  LayerWeights,
  Model,
  ModelChoices,
  ModelFamily,
  ModelSpec,
  RunFromResult,
  RunResult,
  TokenizeResult,
} from 'attention-wasm/model';
const model: Model = await loadModel(new Map([['config.json', '{}']]), { onProgress: (e) => e.loaded });
const run: RunResult = await model.run({ ids: [1, 2, 3] }, { capture: [{ layer: 0, head: 1 }], ablate: [[0, 0]] });
const part: RunFromResult = await model.run(
  { ids: [1, 2, 3] },
  { from: { layer: 1, hiddenState: run.hiddenStates![1] }, logits: 'last', layers: 2 },
);
const skipped: Tensor | null = part.attentions![0];
const own: LayerWeights = await model.attentionWeights(1);
const heads: Tensor[] = run.attentions ?? [];
const step: HeadCapture = run.captures[0];
const top: number = (run.next?.[0].p ?? 0) + step.weights.data[0] + heads.length;
const layerWeights = attentionWeightsFrom(readSafetensors(new ArrayBuffer(0)), { layer: 0, config: '{}' });
const bareWeights = attentionWeightsFrom(readSafetensors(new ArrayBuffer(0)), {
  layer: 0,
  config: { family: 'llama', numHeads: 4, numKvHeads: 2 },
});
const bareKv: number = bareWeights.numKvHeads;
const found = attentionTensorsOf(['h.0.attn.c_attn.weight'], { layer: 0 });
const sourceName: string | undefined = found?.sources.wq?.name;
const block: number | undefined = found?.sources.wq?.part?.of;
const foundCausal: boolean | undefined = found?.choices.causal;
const foundBy: 'names' | 'config' | undefined = attentionTensorsOf(['h.0.attn.c_attn.weight'], { config: '{}' })?.by;
// what else a layer's attention computes: scale, softcap, window, LongRoPE's factor, a q/k norm
const carried: number | undefined = layerWeights.scale ?? layerWeights.softcap ?? layerWeights.window;
const factor: number | undefined = layerWeights.rope?.attentionFactor;
const normOver: 'head' | 'projection' | undefined = layerWeights.qkNorm?.over;
const normQ: Float32Array | undefined = layerWeights.qkNorm?.q.data;
// model.spec: the same fields for every family; choices and labels instead of family names
const masked: boolean = model.spec.choices.maskedLm && model.spec.choices.finalNorm;
const placement: ModelChoices['placement'] = model.spec.choices.placement;
const families: readonly ModelFamily[] = SUPPORTED_FAMILIES.map((f) => f.family);
const shown: string = `${model.spec.labels.activation} ${model.spec.labels.norms[0]} ${model.spec.fields.maxPositions}`;
const runs: ModelSpec['activation'] = model.spec.activation;
const capped: number = model.spec.finalSoftcap + model.spec.softcap + model.spec.windows[0];
// @ts-expect-error the labels are read-only
model.spec.labels.activation = 'GELU';
attn.selfAttention(q, layerWeights, { causal: true });
attn.selfAttention(q, layerWeights, { causal: true, window: 4, softcap: 50, rope: { rotaryDims: 2 } });
const fromText: string[] = (await model.run('The cat sat')).tokens ?? [];
const named: string | undefined = run.next?.[0].token;
// @ts-expect-error run takes text or token ids, not a bare array
model.run([1, 2, 3]);
// model.tokenize: synchronous, text only, one entry per position as run's
const labels: TokenizeResult = model.tokenize('The cat sat');
const labelled: string = `${labels.tokens[0]} ${labels.rawTokens[0]} ${labels.ids[0] + 1}`;
// @ts-expect-error tokenize takes text, not token ids
model.tokenize({ ids: [1, 2, 3] });
// @ts-expect-error its result is read-only
labels.ids = [];
for await (const s of model.generate({ ids: [1, 2] }, { maxNewTokens: 2, temperature: 0.7, topK: 5, seed: 1 })) {
  const row: Tensor | undefined = s.attentions?.[0];
  const chosen: number = s.id + s.p + (row?.shape[2] ?? 0) + s.ids.length;
  if (s.finish === 'stop' || chosen < 0) break;
}
// @ts-expect-error generate's stop takes token ids
model.generate('The cat', { stop: 'mat' });
// The instruments (issue 36): patches, loss, ablation modes, headResult, export, unembed, attribute, headScores, sweeps.
const probed = await model.run(
  { ids: [1, 2, 3] },
  {
    patches: [{ layer: 1, step: 'input', rows: [2], value: run.hiddenStates![1] }],
    ablate: [[0, 1], { layer: 1, head: 0, mode: 'resample', reference: { ids: [3, 2, 1] } }],
    loss: true,
  },
);
const perToken: Float32Array | undefined = probed.loss?.perToken;
const written: Uint8Array = await probed.toNpz();
const safetensors: Uint8Array = await probed.toSafetensors();
const result: Tensor = run.captures[0].headResult;
const lens: Tensor = await model.unembed(run.hiddenStates![1], { norm: true });
const parts = await model.attribute({ ids: [1, 2, 3] }, { target: [4, 5], position: 1 });
const share: number = parts.total - parts.embeddings - parts.finalBias + parts.heads.data[0] + parts.mlps[0];
const scores: Tensor = await model.headScores('induction', {
  ids: [
    [1, 2],
    [3, 4],
  ],
  excludeBos: true,
});
const sweep = await model.patchSweep({
  clean: 'the cat',
  corrupted: { ids: [1, 2] },
  target: [4, 5],
  step: 'headOutput',
  onProgress: (e) => e.scores.shape,
  batchRows: 48,
});
const swept: number = sweep.scores.data[0] + sweep.clean - sweep.corrupted;
// target 'top': the pair from the sweep's own runs, said in each event and in the result
const topped = await model.patchSweep({
  clean: 'the cat',
  corrupted: 'the dog',
  target: 'top',
  step: 'input',
  onProgress: (e) => e.target[0],
});
const pair: readonly number[] = topped.target;
// @ts-expect-error a target is token ids or 'top'
model.patchSweep({ clean: 'a', corrupted: 'b', target: 'bottom', step: 'input' });
// @ts-expect-error a sweep patches the residual stream, an attention or MLP output, or a head's output
model.patchSweep({ clean: 'a', corrupted: 'b', target: [1], step: 'q' });
// @ts-expect-error batchRows is a number of rows
model.patchSweep({ clean: 'a', corrupted: 'b', target: [1], step: 'input', batchRows: '48' });
// @ts-expect-error an ablation's mode is zero, mean or resample
model.run('a', { ablate: [{ layer: 0, head: 0, mode: 'noise' }] });
// Weights resident across runs (a budget in bytes; 0 reads at every run).
const kept: Model = await loadModel(new Map([['config.json', '{}']]), { residentBytes: 0 });
const isResident: boolean = kept.resident;
// @ts-expect-error residentBytes is a number of bytes
loadModel(new Map(), { residentBytes: '1 GiB' });
// @ts-expect-error resident is read-only
kept.resident = isResident;
const edited = await model.run(
  { ids: [1, 2] },
  { edits: [{ layer: 0, head: 1, step: 'weights', row: 1, col: 0, value: 1 }] },
);
await model.run({ ids: [1, 2] }, { edits: [{ layer: 0, step: 'hidden', row: 0, col: 0, value: edited.ids[0] }] });
// @ts-expect-error a layer's step takes no head
model.run({ ids: [1] }, { edits: [{ layer: 0, head: 0, step: 'hidden', row: 0, col: 0, value: 1 }] });
// The shipped model's folder; attentions and hiddenStates present when asked (the default), optional when they may
// be off; a layer's weights with the shapes the docs print.
import { BUILTIN_MODEL } from 'attention-wasm/model';
import type { RunResultOf, WeightMatrix } from 'attention-wasm/model';
const builtin: Model = await loadModel(BUILTIN_MODEL);
const builtinHref: string = BUILTIN_MODEL.href;
const plainRun = await builtin.run('the cat');
const everyLayer: Tensor[] = plainRun.attentions;
const everyHidden: Tensor = plainRun.hiddenStates[0];
const asked: Tensor[] = (await builtin.run('the cat', { attentions: true, topK: 3 })).attentions;
const fromRun: (Tensor | null)[] = (await builtin.run('the cat', { from: { layer: 1, hiddenState: everyHidden } }))
  .hiddenStates;
declare const maybe: boolean;
const offRun: RunResultOf = await builtin.run('the cat', { attentions: maybe });
// @ts-expect-error attentions may be off: absent
const notThere: Tensor[] = offRun.attentions;
// @ts-expect-error hiddenStates: false leaves them out
const leftOut: Tensor[] = (await builtin.run('the cat', { hiddenStates: false })).hiddenStates;
const wq: WeightMatrix = (await builtin.attentionWeights(0)).wq;
const [rowsIn, colsOut]: [number, number] = wq.shape;
const biasLength: number | undefined = (await builtin.attentionWeights(0)).bq?.shape[0];
console.log(builtinHref, everyLayer, asked, fromRun, notThere, leftOut, rowsIn + colsOut, biasLength);
// @ts-expect-error BUILTIN_MODEL is a constant
BUILTIN_MODEL = new URL('https://example.org/');
// @ts-expect-error attentionWeightsFrom's options are layer and config
attentionWeightsFrom(readSafetensors(new ArrayBuffer(0)), { Layer: 0, config: '{}' });

// Web sources, cancelling, progress with totals and the browser's cache.
import { HUB_URL } from 'attention-wasm/model';
import { clearModelCache, modelCacheBytes, openModelCache } from 'attention-wasm/model/cache';
const controller = new AbortController();
const fromHub: Model = await loadModel(
  { hub: 'openai-community/gpt2', revision: 'main', base: HUB_URL },
  { signal: controller.signal, cache: await openModelCache(), onProgress: (e) => (e.total ?? 0) - e.loaded },
);
await loadModel(new URL('https://example.org/models/gpt2/'));
await fromHub.run({ ids: [1] }, { signal: controller.signal });
const cached: number = await modelCacheBytes();
const cleared: boolean = await clearModelCache('attention-wasm-model');
// @ts-expect-error a Hub model's id is a string
loadModel({ hub: 42 });
// A typed source (a text field, an attribute) read into what loadModel takes, and the folder it reads.
import { modelFolderUrl, parseModelSource } from 'attention-wasm/model';
import type { HubModel } from 'attention-wasm/model';
const typed: string | HubModel = parseModelSource('./models/gpt2/', {
  base: 'https://example.org/post/',
  hub: HUB_URL,
});
const typedFolder: string = modelFolderUrl(typed);
console.log(typedFolder);
await loadModel(typed);
// @ts-expect-error base is a URL, not a number
parseModelSource('owner/name', { base: 1 });

// attention-wasm/elements: the authoring attributes as properties, and the figure's export.
import type { AttentionExplorer, AttentionHeatmap, InstrumentResult, ModelResult } from 'attention-wasm/elements';
declare const heatmap: AttentionHeatmap;
declare const explorer: AttentionExplorer;
heatmap.caption = 'Figure 1';
heatmap.highlight = 'it → animal';
heatmap.values = 'scores';
explorer.hide = 'entropy caveat';
explorer.export = 'svg png';
const svgText: string = await heatmap.toSVG();
const png: Blob = await explorer.toPNG(2);
// @ts-expect-error hide is the explorer's
heatmap.hide = 'entropy';
console.log(svgText.length, png.size);
// On a real model: the attributes as properties, and its result.
heatmap.model = 'builtin';
heatmap.layer = '2';
heatmap.ids = '464 3797';
heatmap.ablate = '2.1 2.3';
heatmap.next = '';
heatmap.modelView = '';
const shownResult = heatmap.result as ModelResult | null;
if (shownResult) console.log(shownResult.attentions.length, shownResult.weights.shape, shownResult.next?.[0]?.token);
// @ts-expect-error model-view is the heatmap's
explorer.modelView = '';
// An instrument (`view`), on the shipped model by default: its attributes as properties, and its result.
explorer.view = 'attribution';
explorer.target = ' Mary';
explorer.against = ' John';
explorer.position = '3';
explorer.corrupted = 'the cat saw a green ball';
const instrumentResult = explorer.result as InstrumentResult | null;
if (instrumentResult) console.log(instrumentResult.view, instrumentResult.tokens.length);
