// When large grids draw: at once when near the screen, otherwise when the browser is idle.
// The IntersectionObserver starts with the first grid that asks for it, not when this file is imported.

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

/**
 * Tracks whether `grid.element` is near the screen: sets `grid.visible` and draws the grid when it comes near.
 * @param {{ element: HTMLElement, visible: boolean, flush: () => void }} grid
 */
export function watchVisibility(grid) {
  visibility ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const target = entry.target.matrixGrid;
        target.visible = entry.isIntersecting;
        if (target.visible) target.flush();
      }
      markPending();
    },
    { rootMargin: '300px 0px' },
  );
  // The figure, not its scroller: a large matrix hides its scroller and shows a heatmap instead.
  grid.element.matrixGrid = grid;
  visibility.observe(grid.element);
}

/** Draws the grid now when it is visible or small, else queues it for the next idle time. */
export function scheduleDraw(grid, cells) {
  if (grid.visible || cells <= LAZY_CELLS) {
    grid.flush();
  } else {
    waiting.add(grid);
    flushWhenIdle();
  }
  markPending();
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
