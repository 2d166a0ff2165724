// Keyboard and pointer for the elements' grids: one tab stop per grid, arrows (Home/End, PageUp/PageDown) move an
// active cell named by aria-activedescendant, and hovering a cell makes it active too.
import { el } from '../shared/dom.js';

/** The box scrolling a wider `grid` (aria-labelled) sideways: while it scrolls, a named tab stop. */
export function scrollBox(grid) {
  const box = el('div', { class: 'scroll' }, grid);
  const sync = () => {
    const scrolls = box.scrollWidth > box.clientWidth;
    box.tabIndex = scrolls ? 0 : -1;
    box.role = scrolls ? 'region' : null;
    box.ariaLabel = scrolls ? `${grid.ariaLabel}, scrolls sideways` : null;
  };
  const observer = new ResizeObserver(sync);
  observer.observe(box);
  observer.observe(grid);
  return box;
}

/**
 * @param {HTMLElement} grid  the focusable role="grid" element
 * @param {{ size: () => { rows: number, cols: number }, cellAt: (i: number, j: number) => HTMLElement | null,
 *   onActive: (cell: { i: number, j: number } | null) => void, onEnter?: (i: number, j: number) => void,
 *   onKey?: (event: KeyboardEvent, i: number, j: number) => boolean }} hooks  onKey returns true when it handled
 *   the key
 * @returns {{ active: { i: number, j: number }, setActive: (i: number, j: number, announce?: boolean) => void }}
 */
export function gridKeys(grid, hooks) {
  const state = { active: { i: 0, j: 0 }, setActive };
  function setActive(i, j, announce = true) {
    const { rows, cols } = hooks.size();
    if (!rows || !cols) return;
    const previous = hooks.cellAt(state.active.i, state.active.j);
    previous?.classList.remove('active');
    state.active = { i: Math.max(0, Math.min(rows - 1, i)), j: Math.max(0, Math.min(cols - 1, j)) };
    const cell = hooks.cellAt(state.active.i, state.active.j);
    if (cell) {
      cell.classList.add('active');
      grid.setAttribute('aria-activedescendant', cell.id);
      // Only the reader's own moves scroll, and only when the grid has the focus: a redraw never moves the page.
      if (announce && grid.getRootNode().activeElement === grid)
        cell.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
    }
    if (announce) hooks.onActive({ ...state.active });
  }
  grid.addEventListener('keydown', (event) => {
    const { i, j } = state.active;
    if (hooks.onKey?.(event, i, j)) return;
    const { rows, cols } = hooks.size();
    const moves = {
      ArrowUp: [i - 1, j],
      ArrowDown: [i + 1, j],
      ArrowLeft: [i, j - 1],
      ArrowRight: [i, j + 1],
      Home: event.ctrlKey ? [0, 0] : [i, 0],
      End: event.ctrlKey ? [rows - 1, cols - 1] : [i, cols - 1],
      PageUp: [0, j],
      PageDown: [rows - 1, j],
    };
    if (moves[event.key]) {
      event.preventDefault();
      setActive(...moves[event.key]);
    } else if ((event.key === 'Enter' || event.key === 'F2' || event.key === ' ') && hooks.onEnter) {
      event.preventDefault();
      hooks.onEnter(i, j);
    }
  });
  grid.addEventListener('focus', () => setActive(state.active.i, state.active.j));
  grid.addEventListener('blur', () => hooks.onActive(null));
  grid.addEventListener('pointerover', (event) => {
    const cell = event.target.closest?.('[data-i]');
    if (cell) setActive(Number(cell.dataset.i), Number(cell.dataset.j));
  });
  grid.addEventListener('pointerleave', () => {
    if (grid.getRootNode().activeElement !== grid) hooks.onActive(null);
  });
  return state;
}
