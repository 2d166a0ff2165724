// The reused DOM nodes of a grid's drawn window: cells, row headers and column headers.
import { el } from '../shared/dom.js';

/**
 * Keeps exactly `rows` × `cols` cell nodes (with their row and column headers) in the grid's window, reusing
 * those it has.
 */
export function resizePool(grid, rows, cols) {
  const { pool } = grid;
  const cellNode = () => {
    const node = document.createElement('span');
    node.className = 'c';
    node.setAttribute('role', 'gridcell');
    node.append(document.createTextNode(''));
    return node;
  };
  while (pool.colHeads.length < cols) {
    const node = el('span', { class: 'ch', attrs: { role: 'columnheader' } }, '');
    pool.colHeads.push(node);
    grid.colWindow.append(node);
  }
  while (pool.colHeads.length > cols) pool.colHeads.pop().remove();
  while (pool.rows.length < rows) {
    const row = el(
      'div',
      { class: 'gr', attrs: { role: 'row' } },
      el('span', { class: 'sr-only', attrs: { role: 'rowheader' } }, ''),
    );
    pool.rows.push(row);
    grid.cellWindow.append(row);
    const head = el('span', { class: 'rh' }, '');
    pool.heads.push(head);
    grid.headWindow.append(head);
  }
  while (pool.rows.length > rows) {
    pool.rows.pop().remove();
    pool.heads.pop().remove();
  }
  for (const row of pool.rows) {
    while (row.children.length - 1 < cols) row.append(cellNode());
    while (row.children.length - 1 > cols) row.lastChild.remove();
  }
}

/** Sets the text of a node whose first child is its text node, touching the DOM only on a change. */
export function setText(node, text) {
  const textNode = node.firstChild;
  if (textNode.nodeValue !== text) textNode.nodeValue = text;
}
