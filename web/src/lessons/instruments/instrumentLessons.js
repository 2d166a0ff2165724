// The lessons on the shipped induction model's instruments (issue 36 §2): what a head writes (direct logit
// attribution), the logit lens, and patching (where the answer comes from). Each is a few paragraphs, the elements'
// figures (their attributes: elements/instruments/ draws them on the shipped model), and a sentence made from the
// numbers a figure shows (its element's `result`). Pure: no DOM.
import { headName } from '../../shared/counting.js';
import { INSTRUMENT_LESSON_IDS } from './lessonIds.js';

/** The sentence of every figure: a random sequence written twice, the second copy cut before its “ball”. */
export const LESSON_SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';
/** The corrupted prompt of the patching lesson: the first copy's “red” changed. */
export const LESSON_CORRUPTED = LESSON_SENTENCE.replace('a red ball', 'a green ball');

const f3 = (v) => (Number.isFinite(v) ? v.toFixed(3) : '–');
const f2 = (v) => (Number.isFinite(v) ? (Math.abs(v) < 0.005 ? 0 : v).toFixed(2) : '–');
const signed = (v) => `${v <= -0.005 ? '−' : '+'}${Math.abs(v).toFixed(2)}`;

/** What the attribution figure shows, in words: the heads by layer, the MLPs and embeddings, and their sum. */
function headWritesText(result) {
  const shaped = result?.shaped;
  if (!shaped) return '';
  const layerSum = shaped.heads.map((row) => row.reduce((s, v) => s + v, 0));
  const part = (key) => shaped.parts.find((p) => p.key === key)?.value ?? NaN;
  const last = shaped.heads.length - 1;
  const heads = shaped.heads[last].map((v, h) => `${headName(last, h)} ${signed(v)}`).join(', ');
  return `On the shipped model, the run gives “ball” a logit of ${f2(shaped.total)}. The four heads of layer ${last} write ${f2(layerSum[last])} of it (${heads}); the heads of layer 0 together ${signed(layerSum[0])}; the MLPs ${shaped.heads.map((_, l) => `${signed(part(`mlp${l}`))}`).join(' and ')}, the embeddings ${signed(part('embeddings'))}. Every part added up gives ${f2(shaped.sum)}, the logit itself.`;
}

/** What the lens shows, in words: the top token of each residual at the last position, and p(“ball”) row by row. */
function lensText(result) {
  const grid = result?.grid;
  if (!grid) return '';
  const position = result.position;
  const tops = grid.rows.map((row) => `${row.label}: “${row.cells[position].token}” (${f2(row.cells[position].p)})`);
  return `At the last position, “red”, the top token of each residual is ${tops.join('; ')}. The probability of “ball” goes ${grid.line.map(f3).join(' → ')}: nothing before layer 1 predicts it; the induction heads of layer 1 write it in.`;
}

/** What the sweeps show, in words: the position that carries the answer at each layer, and the heads that restore it. */
function patchingText(result, tokens) {
  const sweeps = result?.sweeps;
  if (!sweeps?.input || !sweeps?.headOutput) return '';
  const [L, n] = sweeps.input.scores.shape;
  const H = sweeps.headOutput.scores.shape[1];
  const at = (scores, C, l) => Array.from(scores.data.subarray(l * C, (l + 1) * C));
  const carriers = Array.from({ length: L }, (_, l) => {
    const row = at(sweeps.input.scores, n, l);
    const best = row.indexOf(Math.max(...row));
    return `entering layer ${l}, position ${best} (“${tokens[best]}”) restores ${f2(row[best])}`;
  });
  const heads = Array.from({ length: L }, (_, l) =>
    at(sweeps.headOutput.scores, H, l).map((v, h) => `${headName(l, h)} ${f2(v)}`),
  ).flat();
  return `Patched from the clean run into the corrupted one: ${carriers.join('; ')}. Of the heads (at every position): ${heads.join(', ')}.`;
}

/**
 * The lessons, in the order the page lists them: id (a link's ?lesson=), title, paragraphs, the figures (each an
 * element's attributes) and `say(result, tokens)`, the numbers of figure `saysFrom` in words.
 */
export const INSTRUMENT_LESSONS = Object.freeze(
  [
    {
      id: 'head-writes',
      title: 'What a head writes: direct logit attribution',
      paragraphs: [
        'Each head adds its output, through W_O, into the residual stream; the LM head reads the final residual. Read through the final norm (its scale frozen, as the run computed it) and the LM head’s row of a token, each part of the residual gives its share of that token’s logit, and the shares add up to the logit: direct logit attribution (TransformerLens: decompose_resid, logit_attrs).',
        'Below, the logit of “ball” after “… the cat saw a red”, on the model shipped with the page: which heads write it?',
      ],
      figures: [{ view: 'attribution', target: 'ball', sentence: LESSON_SENTENCE }],
      saysFrom: 0,
      say: headWritesText,
      after:
        'The induction heads of layer 1 write the answer: each looks back at the token after the earlier “red” and copies it. The previous-token head L0H2 writes little directly: its work is read by layer 1’s heads, not by the LM head (the patching lesson shows it).',
    },
    {
      id: 'logit-lens',
      title: 'The logit lens: what the model would say if it stopped here',
      paragraphs: [
        'The residual stream entering each layer can be read as the final one is: through the final norm and the LM head. Each row below is one residual (the embeddings, after layer 0, after layer 1), each column a position, each cell the top token and its probability (TransformerLens: accumulated_resid, then unembed).',
        'The line follows “ball” at the last position, residual by residual. Click a cell to follow another token.',
      ],
      figures: [{ view: 'lens', target: 'ball', sentence: LESSON_SENTENCE }],
      saysFrom: 0,
      say: lensText,
      after:
        'On the embeddings alone each position predicts the token itself (the cell reads its own word); after layer 0 little has changed for the next token; the answer appears only after layer 1, whose induction heads found it in the first copy.',
    },
    {
      id: 'patching',
      title: 'Patching: where does the answer come from',
      paragraphs: [
        'Run a corrupted prompt, the first copy’s “red” changed to “green”: the model no longer knows what comes after “red”. Then put back one activation of the clean run at a time and measure how much of the clean run’s logit(ball) − logit(the corrupted run’s top token) it restores (1: all of it). Each cell of the residual stream’s grid patches one layer’s input at one position; each cell of the heads’ grid one head’s output at every position (TransformerLens: get_act_patch_resid_pre, get_act_patch_attn_head_out_all_pos).',
      ],
      figures: [
        { view: 'patching', sentence: LESSON_SENTENCE, corrupted: LESSON_CORRUPTED },
        { view: 'head-scores', sentence: LESSON_SENTENCE },
      ],
      saysFrom: 0,
      say: patchingText,
      after:
        'The answer sits at the first “red” entering layer 0, and at “ball” (the token after it) entering layer 1: between them, the previous-token head L0H2 copied “red” into the next position, and it restores most of the heads’ grid. The induction heads of layer 1 then find “ball” by the “red” written there. The head scores (below) name the same heads: L0H2 by its previous-token score, layer 1’s heads by their induction scores.',
    },
  ].map((lesson, k) => ({ ...lesson, id: INSTRUMENT_LESSON_IDS[k] })),
);

/** The Investigate tab of each element view (real-model/tools/investigate/tabs.js's keys by the elements' `view`). */
const TAB_OF_VIEW = Object.freeze({
  lens: 'lens',
  attribution: 'attribution',
  patching: 'patching',
  'head-scores': 'scores',
  loss: 'loss',
});

/**
 * A figure as a link's values (app/link.js's query rows): the real-model section on the shipped model, opened at its
 * Investigate part, on the figure's instrument with its inputs (sentence, token, prompts) filled in.
 */
export function investigateLinkValues(figure) {
  return {
    model: 'builtin',
    text: figure.sentence,
    section: 'investigate',
    invTab: TAB_OF_VIEW[figure.view],
    invTarget: figure.target,
    invAgainst: figure.against,
    invPosition: figure.position,
    invCorrupted: figure.corrupted,
  };
}

/** The lesson with this id, or undefined. */
export const instrumentLesson = (id) => INSTRUMENT_LESSONS.find((lesson) => lesson.id === id);
