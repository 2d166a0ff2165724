// A rehearsal of a number's edit for the page's warm-up (warmUp.js), on a copy of a grid that is never on the page.
// A reader's first edit of a large matrix runs code that nothing else on the page has run: the zoomed block's grid
// (made, filled, its cells bound), the cell editor (opened, committed) and the block drawn again with the edit's
// result. At 64 tokens every matrix is a heatmap, so that code is cold until the first click, and the first edit
// paid for it (64–104 ms where later edits take under 40). Here it runs on a detached copy of the grid: nothing is
// painted or focused (a detached input cannot take the focus), no live region is on the page, and the copy's
// observers are dropped at the end.
import { blockAround } from '../walk/canvasMatrix.js';
import { cancelEditor, commitEditor, openEditor } from '../walk/cellEditor.js';
import { forget } from '../walk/renderScheduler.js';

/** The view a grid shows (or will show when it comes near the screen), or null before its first update. */
const viewOf = (grid) => grid.pending ?? grid.shownView ?? null;

/** The first block of a large grid's heatmap, as a click on its first cell picks it. */
const FIRST_CELL = { i: 0, j: 0 };

/**
 * Rehearses an edit of `template`'s first cell on a detached grid of the same kind, options and view: the block
 * zoomed (when the matrix is drawn as a heatmap), the editor opened, a number typed and committed, and the grid
 * drawn again with a changed value, as the edit's render draws it. The edit goes nowhere (onEdit does nothing).
 * @param {import('../walk/matrixGrid.js').MatrixGrid} template  the page's grid (X)
 * @returns {boolean | null} null when there is nothing to rehearse (no view yet)
 */
export function rehearseEdit(template) {
  const view = viewOf(template);
  if (!view || !template.options.editable) return null;
  const grid = new template.constructor({
    ...template.options,
    name: `${template.options.name}-rehearsal`,
    onEdit: () => null,
    onHover: undefined,
  });
  grid.visible = true; // drawn at once, as a grid near the screen is (it is never observed near it)
  try {
    grid.update(view);
    const target = zoomFirstBlock(grid) ?? grid;
    openEditor(target, FIRST_CELL.i, FIRST_CELL.j);
    if (target.editor) {
      target.editor.input.value = String(view.data[0] + 0.5);
      commitEditor(target, true);
    }
    // The edit's render: the same view with another first value (a new array of the same kind, as a render's flat
    // rows are: the drawing code meets no type it has not met).
    const data = view.data.slice();
    data[0] += 0.5;
    grid.update({ ...view, data });
    if (target.editor) cancelEditor(target, false);
  } finally {
    if (grid.large?.zoom) forget(grid.large.zoom);
    grid.large?.canvas.sizeWatch.disconnect();
    forget(grid);
  }
  return true;
}

/** On a grid drawn as a heatmap: picks its first block as a click would, and returns the block's grid. */
function zoomFirstBlock(grid) {
  const canvas = grid.large?.canvas;
  if (!canvas || grid.scroller.hidden === false) return null;
  canvas.reader.active = { ...FIRST_CELL };
  canvas.setBlock(blockAround(FIRST_CELL.i, FIRST_CELL.j, grid.rows, grid.cols));
  canvas.options.onZoom(canvas.block);
  return grid.large.zoom;
}
