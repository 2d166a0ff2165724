// Pointer and keyboard on a grid: hover details, clicks, double-click or typing to edit, arrow-key navigation.
import { openEditor } from './cellEditor.js';
import { hideTooltip, showTooltip } from './tooltip.js';

/** Adds the grid's mouse, focus and key listeners to its scroller. */
export function listenToPointerAndKeys(grid) {
  grid.scroller.addEventListener('mouseover', (event) => hover(grid, event));
  grid.scroller.addEventListener('mouseleave', () => {
    hideTooltip();
    grid.options.onHover?.(null);
  });
  grid.scroller.addEventListener('click', (event) => click(grid, event));
  grid.scroller.addEventListener('dblclick', (event) => {
    const cell = cellOf(grid, event.target);
    if (cell && grid.options.editable) openEditor(grid, cell.i, cell.j);
  });
  grid.scroller.addEventListener('keydown', (event) => key(grid, event));
  grid.scroller.addEventListener('focus', () => {
    if (grid.editor || grid.refocusing || !grid.rows || !grid.scroller.matches(':focus-visible')) return;
    showActive(grid, true);
  });
  grid.scroller.addEventListener('blur', () => {
    hideTooltip();
    grid.options.onHover?.(null);
  });
}

/** Scrolls to the active cell and reports it as hovered; with `details`, shows its tooltip. */
function showActive(grid, details) {
  const { i, j } = grid.active;
  grid.reveal(i, j);
  const node = grid.nodeAt(i, j);
  if (details && node) showDetails(grid, i, j, node);
  grid.options.onHover?.({ i, j });
}

function setActive(grid, i, j) {
  grid.active = { i: Math.min(grid.rows - 1, Math.max(0, i)), j: Math.min(grid.cols - 1, Math.max(0, j)) };
  showActive(grid, true);
}

function cellOf(grid, target) {
  const node = target instanceof Element ? target.closest('.c') : null;
  if (!node || !grid.scroller.contains(node) || node.dataset.i === undefined) return null;
  return { i: Number(node.dataset.i) - grid.offset.i, j: Number(node.dataset.j) - grid.offset.j, node };
}

/** The tooltip of cell (i, j), next to `anchor`. */
function showDetails(grid, i, j, anchor) {
  const { describe } = grid.options;
  if (!describe) return;
  showTooltip(describe(i, j, grid.values[i * grid.cols + j]), anchor);
}

function hover(grid, event) {
  const cell = cellOf(grid, event.target);
  if (!cell || grid.editor) return;
  const box = cell.node.getBoundingClientRect();
  showDetails(grid, cell.i, cell.j, { x: box.right - 10, y: box.bottom - 12 });
  grid.options.onHover?.({ i: cell.i, j: cell.j });
}

function click(grid, event) {
  const cell = cellOf(grid, event.target);
  if (!cell || grid.editor) return;
  grid.active = { i: cell.i, j: cell.j };
  grid.renderWindow();
  if (grid.options.onActivate) grid.options.onActivate(cell.i, cell.j);
  else if (grid.options.editable && event.pointerType === 'touch') openEditor(grid, cell.i, cell.j);
}

/** Where each navigation key moves the active cell (i, j) to, before clamping: the grid's and the heatmap's keys. */
export function keyMoves(i, j, cols, page) {
  return {
    ArrowUp: [i - 1, j],
    ArrowDown: [i + 1, j],
    ArrowLeft: [i, j - 1],
    ArrowRight: [i, j + 1],
    Home: [i, 0],
    End: [i, cols - 1],
    PageUp: [i - page, j],
    PageDown: [i + page, j],
  };
}

function key(grid, event) {
  if (grid.editor || !grid.rows || event.target !== grid.scroller) return;
  const { i, j } = grid.active;
  const moves = keyMoves(i, j, grid.cols, grid.pageRows());
  if (moves[event.key] && !event.altKey) {
    event.preventDefault();
    setActive(grid, ...moves[event.key]);
    return;
  }
  if (grid.options.onActivate && (event.key === 'Enter' || event.key === ' ')) {
    event.preventDefault();
    grid.options.onActivate(i, j);
    return;
  }
  if (!grid.options.editable) return;
  if (event.key === 'Enter' || event.key === 'F2') {
    event.preventDefault();
    openEditor(grid, i, j);
  } else if (
    event.key.length === 1 &&
    /[-+.\d\u2212]/u.test(event.key) &&
    !event.ctrlKey &&
    !event.metaKey &&
    !event.altKey
  ) {
    event.preventDefault();
    openEditor(grid, i, j, event.key);
  }
}
