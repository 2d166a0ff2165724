// The large mode of a MatrixGrid: more than ZOOM rows or columns are drawn as a canvas heatmap (canvasMatrix.js),
// and the numbers of one chosen block of at most ZOOM × ZOOM cells are shown in a small grid under it, editable
// when the matrix is, with the block's offsets added to every row and column it reports.
import { CanvasMatrix, ZOOM } from './canvasMatrix.js';
import { resizePool } from './cellPool.js';
import { el } from '../shared/dom.js';
import { forget } from './renderScheduler.js';

/** Whether a matrix of this size is drawn as a heatmap. */
export const isLarge = (rows, cols) => rows > ZOOM || cols > ZOOM;

function largeParts(grid) {
  if (grid.large) return grid.large;
  const o = grid.options;
  const canvas = new CanvasMatrix({
    title: () => grid.options.title,
    color: o.color === 'none' ? 'signed' : o.color,
    describe: o.describe,
    masked: o.masked,
    onHover: o.onHover,
    onZoom: (block) => zoomTo(grid, block),
  });
  const zoomMount = el('div', { class: 'cm-zoom' });
  const mount = el('div', { class: 'cm-mount' }, canvas.element, zoomMount);
  grid.scroller.after(mount);
  grid.large = { canvas, mount, zoomMount, zoom: null, block: null };
  return grid.large;
}

/**
 * Options of the zoom's grid: the matrix's own, with the block's offsets added back. `origin` is the zoom's own
 * offset, an object that lives as long as the zoom: a callback that comes after the block was closed (a resize, a
 * late draw) still reads a block, never null.
 */
function zoomOptions(grid, origin) {
  const o = grid.options;
  const at = (f) => (f ? (i, j, ...rest) => f(i + origin.i, j + origin.j, ...rest) : undefined);
  return {
    name: `${o.name}-zoom`,
    title: '',
    note: 'the numbers of the chosen block',
    color: o.color,
    editable: o.editable,
    onEdit: at(o.onEdit),
    onActivate: at(o.onActivate),
    onHover: o.onHover ? (cell) => o.onHover(cell && { i: cell.i + origin.i, j: cell.j + origin.j }) : undefined,
    describe: at(o.describe),
    render: at(o.render),
    masked: at(o.masked),
  };
}

function zoomTo(grid, block) {
  const parts = grid.large;
  parts.block = block;
  if (!block) {
    parts.zoomMount.replaceChildren();
    if (parts.zoom) forget(parts.zoom); // its observers and queued draw go with it
    parts.zoom = null;
    return;
  }
  if (!parts.zoom) {
    const origin = { i: block.r0, j: block.c0 };
    parts.zoom = new grid.constructor(zoomOptions(grid, origin));
    parts.zoom.offset = origin;
    const close = el('button', {
      type: 'button',
      class: 'secondary cm-close',
      text: 'Hide the numbers',
      on: {
        click: () => {
          parts.canvas.setBlock(null);
          zoomTo(grid, null);
          parts.canvas.canvas.focus();
        },
      },
    });
    parts.zoomMount.replaceChildren(parts.zoom.element, close);
  }
  showZoom(grid);
}

/** Copies the chosen block out of the matrix into the zoom's grid. */
function showZoom(grid) {
  const { zoom, block } = grid.large;
  const { values, cols: C, rows: R, raw, rowLabels, colLabels, precision, maxAbs } = grid;
  const b = { ...block, rows: Math.min(block.rows, R - block.r0), cols: Math.min(block.cols, C - block.c0) };
  if (b.rows <= 0 || b.cols <= 0) {
    grid.large.canvas.setBlock(null);
    return zoomTo(grid, null);
  }
  const data = new Float64Array(b.rows * b.cols);
  for (let i = 0; i < b.rows; i++) {
    for (let j = 0; j < b.cols; j++) data[i * b.cols + j] = values[(b.r0 + i) * C + b.c0 + j];
  }
  zoom.offset.i = b.r0; // the object zoomOptions' callbacks read
  zoom.offset.j = b.c0;
  zoom.options.editable = grid.options.editable;
  zoom.setTitle(`${grid.options.title} · rows ${b.r0}–${b.r0 + b.rows - 1}, columns ${b.c0}–${b.c0 + b.cols - 1}`);
  zoom.update({
    data,
    rows: b.rows,
    cols: b.cols,
    rowLabels: rowLabels.slice(b.r0, b.r0 + b.rows),
    colLabels: colLabels.slice(b.c0, b.c0 + b.cols),
    precision,
    raw: raw ? raw.slice(b.r0, b.r0 + b.rows).map((row) => row.slice(b.c0, b.c0 + b.cols)) : null,
    shapeText: `[${b.rows}, ${b.cols}] of [${R}, ${C}]`,
    colorScale: maxAbs,
  });
  zoom.flush();
}

/**
 * Shows the grid's current values (already stored on it) in the large mode, or leaves the large mode.
 * @returns {boolean} true when the matrix is drawn as a heatmap
 */
export function showLarge(grid) {
  const large = isLarge(grid.rows, grid.cols);
  grid.scroller.hidden = large;
  if (!large) {
    if (grid.large) grid.large.mount.hidden = true;
    return false;
  }
  const parts = largeParts(grid);
  parts.mount.hidden = false;
  resizePool(grid, 0, 0);
  parts.canvas.update({
    data: grid.values,
    rows: grid.rows,
    cols: grid.cols,
    rowLabels: grid.rowLabels,
    colLabels: grid.colLabels,
    precision: grid.precision,
    maxAbs: grid.maxAbs,
  });
  if (parts.block) showZoom(grid);
  return true;
}
