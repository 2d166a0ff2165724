// Numbers as text: cells at a chosen precision, and whole matrices exported as NumPy, JSON or CSV.

/**
 * A value at `precision` decimals; −∞ (a masked score) as "-∞".
 * @param {number} value
 * @param {number} precision  decimals, 0–7
 */
export function formatValue(value, precision) {
  if (value === -Infinity) return '-∞';
  if (value === Infinity) return '∞';
  if (Number.isNaN(value)) return 'NaN';
  const text = value.toFixed(precision);
  return /^-0(?:\.0*)?$/u.test(text) ? text.slice(1) : text;
}

/** The shortest decimal text that reads back as the same float32 value. */
export function float32Text(value) {
  if (!Number.isFinite(value)) return String(value);
  const f = Math.fround(value);
  for (let digits = 1; digits <= 9; digits++) {
    const text = String(Number(f.toPrecision(digits)));
    if (Math.fround(Number(text)) === f) return text;
  }
  return String(f);
}

const cell = {
  numpy: (v) => (v === -Infinity ? '-np.inf' : v === Infinity ? 'np.inf' : float32Text(v)),
  // JSON has no infinity; ±1e999 is valid JSON that overflows to ±∞ in JSON.parse and Python's json.loads.
  json: (v) => (v === -Infinity ? '-1e999' : v === Infinity ? '1e999' : Number.isNaN(v) ? 'null' : float32Text(v)),
  csv: (v) => (v === -Infinity ? '-inf' : v === Infinity ? 'inf' : float32Text(v)),
};

/** The export formats, with their names for buttons. */
export const EXPORT_FORMATS = { numpy: 'NumPy', json: 'JSON', csv: 'CSV' };

/**
 * A matrix as text to paste into Python, JavaScript or a spreadsheet. Values are float32, written with the
 * fewest digits that read back exactly; −∞ is `-np.inf` in NumPy, `-1e999` in JSON
 * (read back as −∞) and `-inf` in CSV.
 * @param {ArrayLike<number>[]} rows
 * @param {'numpy' | 'json' | 'csv'} format
 */
export function exportMatrix(rows, format) {
  const write = cell[format];
  if (!write) throw new Error(`unknown format ${format}`);
  const lines = Array.from(rows, (row) => Array.from(row, write));
  if (format === 'csv') return lines.map((line) => line.join(',')).join('\n') + '\n';
  if (format === 'json') return `[\n${lines.map((line) => `  [${line.join(', ')}]`).join(',\n')}\n]\n`;
  const body = lines.map((line, i) => `${i === 0 ? 'np.array([' : '          '}[${line.join(', ')}]`).join(',\n');
  return `${body}], dtype=np.float32)\n`;
}

/** A shape as "[5, 4]". */
export function formatShape(shape) {
  return `[${shape.join(', ')}]`;
}

/** A duration in milliseconds with 2 significant-ish digits: "0.21 ms", "12 ms". */
export function formatMs(ms) {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  return `${Math.round(ms)} ms`;
}

/**
 * Breaks text into lines no wider than maxWidth, at spaces where it can, inside a word when the word alone is too
 * wide.
 * @param {string} text
 * @param {number} maxWidth
 * @param {(text: string) => number} measure  the width of a piece of text, e.g. a canvas's measureText
 * @returns {string[]}
 */
export function wrapText(text, maxWidth, measure) {
  const lines = [];
  let line = '';
  for (const word of text.split(/ +/u)) {
    const joined = line ? `${line} ${word}` : word;
    if (measure(joined) <= maxWidth) {
      line = joined;
      continue;
    }
    if (line) lines.push(line);
    line = '';
    for (const char of Array.from(word)) {
      if (line && measure(line + char) > maxWidth) {
        lines.push(line);
        line = '';
      }
      line += char;
    }
  }
  if (line || !lines.length) lines.push(line);
  return lines;
}
