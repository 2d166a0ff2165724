// When large grids draw: at once when near the screen, otherwise when the browser is idle.
// The IntersectionObserver (and the print's catch-up) starts with the first grid that asks for it, not when this file
// is imported.
import { taskBreak } from '../shared/taskBreak.js';

/** Matrices with more cells than this update only when near the screen, or when the browser is idle. */
export const LAZY_CELLS = 1024;

const waiting = new Set();
let idleRequest = 0;
let visibility = null;

/** Publishes how many grids still wait to draw (the page tests wait for 0). */
function markPending() {
  document.documentElement.dataset.pendingGrids = String(waiting.size);
}

function flushWhenIdle() {
  if (idleRequest || waiting.size === 0) return;
  const request =
    globalThis.requestIdleCallback ?? ((callback) => setTimeout(() => callback({ timeRemaining: () => 8 }), 30));
  idleRequest = request(
    (deadline) => {
      idleRequest = 0;
      for (const grid of waiting) {
        grid.flush();
        if (deadline.timeRemaining() < 6) break;
      }
      markPending();
      flushWhenIdle();
    },
    { timeout: 800 },
  );
}

/** True from `beforeprint` to `afterprint`: every grid draws at once, near the screen or not. */
let printing = false;
export const isPrinting = () => printing;

/**
 * A print shows every grid: those still waiting for the screen or for idle time draw before the paper layout, and so
 * do those that other `beforeprint` listeners (the lessons drawn only on screen) update after this one.
 */
function flushForPrint() {
  printing = true;
  for (const grid of waiting) grid.flush();
  markPending();
}

/** How far from the screen (px, above and below) a grid counts as near it. */
const NEAR = 300;

/** The grids watched before the first draw, whose nearness that draw measures at once; null after it. */
let unmeasured = [];

/**
 * Tracks whether `grid.element` is near the screen: sets `grid.visible` (null until known) and draws the grid when
 * it comes near.
 * @param {{ element: HTMLElement, visible: boolean | null, flush: () => void }} grid
 */
export function watchVisibility(grid) {
  if (!visibility) {
    window.addEventListener('beforeprint', flushForPrint, { capture: true }); // before the other listeners
    window.addEventListener('afterprint', () => (printing = false));
  }
  visibility ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const target = entry.target.matrixGrid;
        target.visible = entry.isIntersecting;
        if (target.visible) target.flush();
      }
      markPending();
    },
    { rootMargin: `${NEAR}px 0px` },
  );
  // The figure, not its scroller: a large matrix hides its scroller and shows a heatmap instead.
  grid.element.matrixGrid = grid;
  grid.visible = null;
  unmeasured?.push(grid);
  visibility.observe(grid.element);
}

/**
 * Calls onSize(box) with the node's content box when it changes while the node is on the page. A node taken off the
 * page reports a last size of 0 after it left: its owner may have let go of what drawing needs, so that report is
 * dropped (it threw from a closed block's grid once).
 * @returns {ResizeObserver} to disconnect when the node leaves for good
 */
export function watchSize(node, onSize) {
  const observer = new ResizeObserver(([entry]) => {
    if (node.isConnected) onSize(entry.contentRect);
  });
  observer.observe(node);
  return observer;
}

/** Stops watching a grid that left the page for good (its size too, `grid.sizeWatch`), and drops its queued draw. */
export function forget(grid) {
  grid.sizeWatch?.disconnect();
  visibility?.unobserve(grid.element);
  unmeasured = unmeasured?.filter((other) => other !== grid) ?? null;
  waiting.delete(grid);
  markPending();
}

/**
 * The page's first draw comes before the observer's first report: it measures, once and for every grid at the same
 * time (one layout), which grids are near the screen. A grid inside a step is as near as its step, whose box is known
 * even while `content-visibility` skips the step's content.
 */
function measureOnce() {
  if (!unmeasured) return;
  const height = window.innerHeight;
  for (const grid of unmeasured) {
    if (grid.visible !== null) continue;
    const box = (grid.element.closest('.step') ?? grid.element).getBoundingClientRect();
    grid.visible = box.bottom >= -NEAR && box.top <= height + NEAR;
  }
  unmeasured = null;
}

/**
 * Draws the grid now when it is near the screen (or small and not known to be away from it), else queues it for the
 * next idle time. Matrices away from the screen wait at every size: a change that shows new numbers everywhere (a new
 * seed) then lays out and paints only those near the screen before its frame, and the others follow when the browser
 * is idle or when they scroll near.
 */
export function scheduleDraw(grid, cells) {
  if (grid.visible === null) measureOnce();
  const away = grid.visible === false;
  if (printing || grid.visible === true || (cells <= LAZY_CELLS && !away)) {
    grid.flush();
  } else {
    waiting.add(grid);
    flushWhenIdle();
  }
  markPending();
}

/**
 * As scheduleDraw, once the next frame is painted: a view that an input elsewhere changes (the one-layer head view
 * following a head opened in the model view) lets that input's own result be painted first. Its nearness to the
 * screen is measured then (the layout is fresh after a paint): the observer's last report may be older than a jump
 * to the button clicked. It counts as pending meanwhile; idle time may draw it first.
 */
export function scheduleDrawAfterPaint(grid, cells) {
  waiting.add(grid);
  markPending();
  // the task after the frame's paint
  requestAnimationFrame(() =>
    taskBreak().then(() => {
      if (!waiting.delete(grid)) return; // drawn meanwhile
      const box = grid.element.getBoundingClientRect();
      grid.visible = box.bottom >= -NEAR && box.top <= window.innerHeight + NEAR;
      scheduleDraw(grid, cells);
    }),
  );
}

/** Takes the grid out of the queue (it is drawing now). */
export function drawn(grid) {
  waiting.delete(grid);
}

const sameList = (a, b) => a === b || (a.length === b.length && a.every((x, k) => String(x) === String(b[k])));

/**
 * Whether a grid's new view shows exactly what the last one did (the same data array, sizes, labels, precision
 * and exact numbers): then there is nothing to redraw.
 */
export function sameView(a, b) {
  if (!a || !b) return false;
  return (
    a.data === b.data &&
    a.rows === b.rows &&
    a.cols === b.cols &&
    a.precision === b.precision &&
    a.raw === b.raw &&
    a.shapeText === b.shapeText &&
    a.colorScale === b.colorScale &&
    sameList(a.rowLabels, b.rowLabels) &&
    sameList(a.colLabels, b.colLabels)
  );
}
