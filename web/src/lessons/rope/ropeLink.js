// The RoPE lesson's settings (step 10): their choices, defaults and keys in a link, added to the page's state
// (state.js's addStatePart) when the lesson's view is loaded; the elements never load them.
import { addStatePart } from '../../shared/state.js';

/** theta, LLaMA's `rope_theta`: the frequencies' base. 10 000: the RoPE paper, LLaMA 2, GPT-NeoX; 500 000: LLaMA 3. */
export const ROPE_THETAS = Object.freeze([10, 100, 1000, 10000, 500000, 1000000]);
/** 'half': dimension i pairs with i + d/2 (LLaMA, GPT-NeoX rotate_half); 'interleaved': 2i with 2i + 1 (GPT-J). */
export const ROPE_STYLES = Object.freeze(['half', 'interleaved']);
/** The largest shift of the whole sentence the lesson takes (from a link; its slider goes to ROPE_SLIDER_SHIFT). */
export const ROPE_MAX_SHIFT = 1000;
export const ROPE_SLIDER_SHIFT = 64;

/** The lesson's part of the page's state. */
export const ROPE_DEFAULTS = Object.freeze({ ropeTheta: 10000, ropeStyle: 'half', ropeShift: 3 });

/** Its keys in a link. */
export const ROPE_FIELDS = Object.freeze(['rth', 'rsty', 'rsh']);

/** The link's [key, value] pairs of the lesson's settings that differ from the defaults. */
export function ropeLinkPairs(state) {
  const pairs = [];
  if (state.ropeTheta !== ROPE_DEFAULTS.ropeTheta) pairs.push(['rth', state.ropeTheta]);
  if (state.ropeStyle !== ROPE_DEFAULTS.ropeStyle) pairs.push(['rsty', state.ropeStyle]);
  if (state.ropeShift !== ROPE_DEFAULTS.ropeShift) pairs.push(['rsh', state.ropeShift]);
  return pairs;
}

/**
 * Reads the lesson's settings from a link into `state`; a bad value keeps the default and is reported.
 * @param {(key: string) => string | null} get
 * @param {(key: string, why: string) => void} bad
 */
export function readRopeLink(get, bad, state) {
  const theta = get('rth');
  if (theta !== null) {
    const value = Number(theta);
    if (/^\d{1,7}$/u.test(theta) && ROPE_THETAS.includes(value)) state.ropeTheta = value;
    else bad('rth', `is not one of the lesson's theta values (${ROPE_THETAS.join(', ')})`);
  }
  const style = get('rsty');
  if (style !== null) {
    if (ROPE_STYLES.includes(style)) state.ropeStyle = style;
    else bad('rsty', 'is neither half nor interleaved');
  }
  const shift = get('rsh');
  if (shift !== null) {
    const value = Number(shift);
    if (/^\d{1,4}$/u.test(shift) && value <= ROPE_MAX_SHIFT) state.ropeShift = value;
    else bad('rsh', `is not a shift from 0 to ${ROPE_MAX_SHIFT}`);
  }
}

addStatePart({ defaults: ROPE_DEFAULTS, fields: ROPE_FIELDS, pairs: ropeLinkPairs, read: readRopeLink });
