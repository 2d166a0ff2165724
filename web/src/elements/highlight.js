// The `highlight` attribute: cells, rows or columns of the query × key figures that an author points at, written
// "query → key" with a token's text, its position (#3, from 1) or * for all, several separated by ";". Pure: no DOM.
import { nearest, shorten } from './attributes.js';

const ARROW = /^(\S+?)\s*(?:→|->)\s*(\S+)$/u;

/** The position of one side of a pair in `labels`, or a message; null for * (every token). */
function position(text, labels, side) {
  if (text === '*') return { index: null };
  const numbered = /^#(\d{1,6})$/u.exec(text);
  if (numbered) {
    const index = Number(numbered[1]) - 1;
    if (index >= 0 && index < labels.length) return { index };
    return { problem: `${side} ${text} is not a token: the positions go from #1 to #${labels.length}` };
  }
  let found = labels.flatMap((label, k) => (label === text ? [k] : []));
  if (!found.length) found = labels.flatMap((label, k) => (label.toLowerCase() === text.toLowerCase() ? [k] : []));
  if (found.length === 1) return { index: found[0] };
  if (found.length > 1)
    return {
      problem: `${side} “${shorten(text)}” is token ${found.map((k) => `#${k + 1}`).join(' and ')}: write one of those`,
    };
  return { problem: `${side} “${shorten(text)}” is not a token here; did you mean “${nearest(text, labels)}”?` };
}

/**
 * The cells `text` highlights, as a function of (query i, key j), with the problems found (each names what to fix).
 * @param {string} text  the attribute, e.g. "it → animal", "it → *; #2 → #2"
 * @param {string[]} labels  the tokens, one per row (and column) of the figures
 * @returns {{ marked: ((i: number, j: number) => boolean) | null, mark: (cells: HTMLElement[][]) => void,
 *   problems: string[] }}  marked null: nothing to mark; mark: markCells with `marked`
 */
export function parseHighlight(text, labels) {
  const pairs = [];
  const problems = [];
  for (const part of text.split(';').map((p) => p.trim())) {
    if (!part) continue;
    const match = ARROW.exec(part);
    if (!match) {
      problems.push(`highlight="${shorten(part)}" should be query → key (a token, #position or *), e.g. "it → animal"`);
      continue;
    }
    const query = position(match[1], labels, 'highlight: query');
    const key = position(match[2], labels, 'key');
    for (const side of [query, key]) if (side.problem) problems.push(side.problem);
    if (!query.problem && !key.problem) pairs.push([query.index, key.index]);
  }
  const marked = pairs.length
    ? (i, j) => pairs.some(([q, k]) => (q === null || q === i) && (k === null || k === j))
    : null;
  return { marked, mark: (cells) => marked && markCells(cells, marked), problems };
}

/**
 * Marks the cells of a grid that `marked` names (class "mk") with the edges of each marked region (mt, mb, ml, mr),
 * so a row, a column or a cell gets one outline. The grids make new cells at each update: nothing to clear.
 * @param {HTMLElement[][]} cells  [rows][cols]
 * @param {((i: number, j: number) => boolean) | null} marked
 */
export function markCells(cells, marked) {
  const on = (i, j) => Boolean(marked) && i >= 0 && j >= 0 && i < cells.length && j < cells[i].length && marked(i, j);
  cells.forEach((row, i) =>
    row.forEach((cell, j) => {
      if (!on(i, j)) return;
      cell.classList.add('mk');
      for (const [edge, [a, b]] of Object.entries({ mt: [i - 1, j], mb: [i + 1, j], ml: [i, j - 1], mr: [i, j + 1] }))
        if (!on(a, b)) cell.classList.add(edge);
      cell.setAttribute('aria-description', 'highlighted');
    }),
  );
}
