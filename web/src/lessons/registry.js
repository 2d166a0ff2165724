// The lessons as steps: one table that the page and the embeddable elements share. Each step names its section of
// the page, its example, and, where it makes calls of its own, a pure function from an attention instance and a
// state to the numbers its view draws (through the public API only), with a function that puts them in words.
import { crossStep, crossText } from './cross-attention/cross.js';
import { designedStep } from './designed-heads/designedLesson.js';
import { gqaStep, gqaText } from './gqa/gqa.js';
import { attentionCall } from '../shared/inputs.js';
import { kvCacheStep, kvCacheText } from './kv-cache/kvCache.js';
import { projectionText } from '../shared/explanations.js';
import { ropeStep, ropeText } from './rope/ropeLesson.js';
import { softcapWindowStep } from './softcap-window/softcapWindow.js';
import { windowText } from './softcap-window/softcapText.js';
import { wordOrderDemo, wordOrderText } from './word-order/wordOrder.js';

/** The layer of the state, with every step: what the steps 1–8 and the score readouts draw. */
function layerStep(attn, state) {
  const call = attentionCall(state);
  return attn.selfAttention(call.x, call.weights, call.options);
}

/**
 * @typedef {object} LessonStep
 * @property {string} id         stable, for links and elements
 * @property {string} title
 * @property {string} section    the id of its section on the page
 * @property {string} example    the id of its named example (examples.js)
 * @property {(attn: object, state: object) => object} compute  the numbers, from the public API
 * @property {(state: object, step: object) => string} [text]   the numbers in words
 * @type {readonly LessonStep[]}
 */
export const LESSON_STEPS = Object.freeze([
  {
    id: 'output-projection',
    title: 'Heads side by side, then W_o',
    section: 'step-heads',
    example: 'projection',
    compute: layerStep,
    text: (state) => projectionText(state),
  },
  {
    id: 'word-order',
    title: 'Word order: attention alone does not see it',
    section: 'step-order',
    example: 'order',
    compute: wordOrderDemo,
    text: wordOrderText,
  },
  {
    id: 'rope',
    title: 'Rotary positions (RoPE): turn q and k instead of adding P',
    section: 'step-rope',
    example: 'rope',
    compute: ropeStep,
    text: ropeText,
  },
  {
    id: 'kv-cache',
    title: 'The KV cache: generating one more token',
    section: 'step-kv',
    example: 'kv',
    compute: kvCacheStep,
    text: kvCacheText,
  },
  {
    id: 'designed-heads',
    title: 'Heads with meaning: designed heads',
    section: 'step-designed',
    example: 'designed',
    compute: designedStep,
  },
  { id: 'gqa', title: 'Grouped-query attention', section: 'step-gqa', example: 'gqa', compute: gqaStep, text: gqaText },
  {
    id: 'cross-attention',
    title: 'Cross-attention: one sentence asks, another answers',
    section: 'step-cross',
    example: 'cross',
    compute: crossStep,
    text: crossText,
  },
  {
    id: 'softcap-window',
    title: 'Softcapping and sliding windows',
    section: 'step-softcap',
    example: 'gemma',
    compute: softcapWindowStep,
    text: windowText,
  },
  {
    id: 'why-score',
    title: 'Why a score is what it is',
    section: 'step-scores',
    example: 'sentence',
    compute: layerStep,
  },
]);

/** The step with this id, or undefined. */
export const lessonStep = (id) => LESSON_STEPS.find((step) => step.id === id);
