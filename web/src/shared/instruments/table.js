// An instrument's numbers as a table (named columns, a label per row) and as text to paste into Python, JavaScript or
// a spreadsheet: CSV with a header, JSON as one object per row, NumPy as the numeric columns in one float32 array
// with the column and row names in comments. The views of the Investigate part (real-model/tools/investigate/) and,
// later, the elements copy them. Pure: no DOM.
import { exportMatrix, float32Text } from '../format.js';

/**
 * @typedef {{ label: string, values: number[] }} TableRow
 * @typedef {{ title: string, labelName: string, columns: string[], rows: TableRow[] }} Table
 */

/** A CSV field: quoted when it holds a comma, a quote or a line break. */
const csvField = (text) => (/[",\n\r]/u.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/** A number as CSV and JSON write it: the shortest float32 text; NaN as empty (CSV) or null (JSON). */
const numberText = (v, nan) =>
  Number.isNaN(v) ? nan : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : float32Text(v);

/**
 * `table` as text in `format`.
 * @param {Table} table
 * @param {'csv' | 'json' | 'numpy'} format
 */
export function exportTable(table, format) {
  const { labelName, columns, rows } = table;
  if (format === 'csv') {
    const head = [labelName, ...columns].map(csvField).join(',');
    const body = rows.map((r) => [csvField(r.label), ...r.values.map((v) => numberText(v, ''))].join(','));
    return `${[head, ...body].join('\n')}\n`;
  }
  if (format === 'json') {
    const json = (v) => (Number.isFinite(v) ? Number(float32Text(v)) : null);
    const objects = rows.map((r) => ({
      [labelName]: r.label,
      ...Object.fromEntries(columns.map((c, k) => [c, json(r.values[k])])),
    }));
    return `[\n${objects.map((o) => `  ${JSON.stringify(o)}`).join(',\n')}\n]\n`;
  }
  if (format === 'numpy') {
    const names = (list) => list.map((s) => JSON.stringify(s)).join(', ');
    const matrix = exportMatrix(
      rows.map((r) => r.values.map((v) => (Number.isNaN(v) ? 0 : v))),
      'numpy',
    ).replaceAll('NaN', 'np.nan');
    const nan = rows.some((r) => r.values.some(Number.isNaN)) ? '# not computed: 0\n' : '';
    return `# ${table.title}\n# columns: ${names(columns)}\n# rows (${labelName}): ${names(rows.map((r) => r.label))}\n${nan}${matrix}`;
  }
  throw new Error(`unknown format ${format}`);
}

/**
 * A [rows, cols] grid (values row by row) as a table: `rowLabels` name the rows, `columns` the columns.
 * @param {ArrayLike<number>} data
 * @returns {Table}
 */
export function gridTable(title, labelName, rowLabels, columns, data) {
  return {
    title,
    labelName,
    columns,
    rows: rowLabels.map((label, i) => ({
      label,
      values: Array.from({ length: columns.length }, (_, j) => data[i * columns.length + j]),
    })),
  };
}

/** Column names for tokens: "0 the", "1 cat" (position and token, so that repeated tokens stay apart). */
export const tokenColumns = (tokens) => tokens.map((t, i) => `${i} ${t}`);

/**
 * Several tables as one text: one after the other (CSV, NumPy: a blank line between, each with its title), or one
 * JSON object whose keys are their titles.
 * @param {Table[]} tables
 */
export function exportTables(tables, format) {
  if (tables.length === 1) return exportTable(tables[0], format);
  if (format === 'json') {
    const parts = tables.map((t) => `${JSON.stringify(t.title)}: ${exportTable(t, 'json').trimEnd()}`);
    return `{\n${parts.join(',\n')}\n}\n`;
  }
  return tables.map((t) => (format === 'csv' ? `# ${t.title}\n` : '') + exportTable(t, format)).join('\n');
}
