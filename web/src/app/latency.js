// What the status line says a change cost: from the input (the event's own time stamp) to the frame that shows
// its result, as the user waits for it, with the WebAssembly part. Also the time from navigation to the first
// numbers on screen. The body's data-* attributes are the tests' and the bench's hooks.
import { formatMs } from '../shared/format.js';
import { taskBreak } from '../shared/taskBreak.js';

let inputAt = null;
let first = true;

/** Remembers when the latest input happened (capture listeners: they see every input before the page acts on it). */
export function watchInputs() {
  for (const type of ['pointerdown', 'keydown', 'input', 'change', 'click', 'drop']) {
    window.addEventListener(
      type,
      (event) => {
        inputAt = event.timeStamp;
      },
      { capture: true, passive: true },
    );
  }
}

/** Runs `callback` just after the next frame is painted (a task queued from the frame's animation callback). */
function afterPaint(callback) {
  requestAnimationFrame(() => taskBreak().then(() => callback(performance.now())));
}

/**
 * Reports a render that has just drawn: once the frame is painted, writes to `node` how long the user waited
 * since the input that caused it (or since `changedAt` when no input did, e.g. a link opened), and WebAssembly's share.
 * @param {HTMLElement} node  the status line's time
 * @param {{ changedAt: number, computeMs: number | null, preview?: boolean, projection?: object | null }} render
 *   computeMs null: nothing was recomputed; preview: only the weights were (a temperature drag), the rest follows;
 *   projection: lastProjection()
 */
export function reportRender(node, { changedAt, computeMs, preview = false, projection = null }) {
  const from = inputAt !== null && inputAt <= changedAt ? inputAt : changedAt;
  inputAt = null;
  afterPaint((paintedAt) => {
    const waited = paintedAt - from;
    const body = document.body.dataset;
    body.paintMs = waited.toFixed(1);
    if (first) {
      first = false;
      body.firstPaintMs = paintedAt.toFixed(0);
      // The steps stop skipping their layout (steps.css) once the browser is idle after the first numbers.
      const idle = globalThis.requestIdleCallback ?? ((callback) => setTimeout(callback, 200));
      idle(() => document.body.classList.add('settled'), { timeout: 3000 });
    }
    const rows = projection?.ahead
      ? ' (the rest was computed ahead, in a worker)'
      : projection
        ? ` (x·W projected again for ${projection.rows} of ${projection.of} tokens)`
        : '';
    const wasm = computeMs === null ? 'nothing recomputed' : `of which WebAssembly ${formatMs(computeMs)}${rows}`;
    const rest = preview ? ' (the weights only: the rest follows when the slider rests)' : '';
    node.textContent = `last update ${formatMs(waited)} from input to screen, ${wasm}${rest}`;
    node.title = node.textContent; // the whole line, where a narrow header cuts it short
  });
}

/** A render slower than this (ms) cannot meet the 50 ms budget: the next one waits for the input's feedback first. */
export const SLOW_RENDER_MS = 45;

/**
 * Runs `callback` once the next frame has been painted: a change whose drawing is slow lets the browser first
 * paint what the input itself changed (the box ticked, the slider moved), then draws the numbers.
 */
export function afterNextPaint(callback) {
  requestAnimationFrame(() => taskBreak().then(callback));
}
