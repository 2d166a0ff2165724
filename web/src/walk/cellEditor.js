// The in-cell editor of an editable grid: opens on a cell, commits on Enter, Tab or blur, cancels on Escape.
import { el } from '../shared/dom.js';
import { hideTooltip } from './tooltip.js';

/**
 * Opens the editor on cell (i, j) of `grid`, optionally replacing its text with `initial`. The grid keeps the
 * open editor in `grid.editor` and offers reveal, nodeAt, renderWindow, setCellError and its option onEdit.
 */
export function openEditor(grid, i, j, initial) {
  if (grid.editor) cancelEditor(grid, false);
  grid.active = { i, j };
  grid.reveal(i, j);
  const node = grid.nodeAt(i, j);
  if (!node) return;
  const k = i * grid.cols + j;
  const current = grid.invalid.get(k) ?? (grid.raw ? String(grid.raw[i][j]) : String(grid.values[k]));
  const input = el('input', {
    class: 'cell-editor',
    type: 'text',
    value: initial ?? current,
    attrs: {
      inputmode: 'decimal',
      spellcheck: 'false',
      autocomplete: 'off',
      'aria-label': `${grid.options.title}, row ${grid.rowLabels[i]}, column ${grid.colLabels[j]}`,
    },
  });
  grid.editor = { input, i, j, node };
  hideTooltip();
  node.classList.add('editing');
  node.append(input);
  input.focus({ preventScroll: true });
  if (initial === undefined) input.select();
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      commitEditor(grid, true);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      cancelEditor(grid, true);
    } else if (event.key === 'Tab') {
      commitEditor(grid, false);
    }
  });
  input.addEventListener('blur', () => {
    if (grid.editor?.input === input) commitEditor(grid, false);
  });
}

function closeEditor(grid) {
  const { input, node } = grid.editor;
  grid.editor = null;
  input.remove();
  node.classList.remove('editing');
}

/** Hands the typed text to onEdit; text it refuses stays in the cell, marked invalid, with its message. */
export function commitEditor(grid, refocus) {
  const { input, i, j } = grid.editor;
  const text = input.value;
  closeEditor(grid);
  const error = grid.options.onEdit?.(i, j, text) ?? null;
  grid.setCellError(i * grid.cols + j, text, error);
  grid.renderWindow();
  if (refocus) refocusGrid(grid);
}

/** Closes the editor and keeps the cell as it was. */
export function cancelEditor(grid, refocus) {
  closeEditor(grid);
  grid.renderWindow();
  if (refocus) refocusGrid(grid);
}

/**
 * Gives the focus back to the grid without the cell's tooltip: it would describe the value before the edit (the
 * grid's values change with the next render), and placing it lays the page out in the key's own event.
 */
function refocusGrid(grid) {
  grid.refocusing = true;
  grid.scroller.focus({ preventScroll: true });
  grid.refocusing = false;
}
