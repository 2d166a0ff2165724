// The Markdown table of a bench run (run.mjs in Node, browser.mjs in Chromium): one row per (case,
// implementation), median and min, GFLOP/s, the ratios to onnxruntime-web by median and by min, then the
// columns that the run adds, and the max abs error.
import { flops } from './cases.mjs';

export const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(4));
export const mb = (bytes) => (bytes === undefined ? '' : (bytes / 2 ** 20).toFixed(1));

/**
 * @param cases    the cases of the run, in order
 * @param impls    [{ name, cases?: case names (default all), base?: the name its ratio column uses }]
 * @param results  [{ impl, case, medianMs, minMs, maxAbsError } or { impl, case, na } or { impl, case, failed }]
 * @param extra    [[header, (result, spec, ratio) => cell]]; ratio(result, implName, 'medianMs' | 'minMs')
 */
export function formatTable(cases, impls, results, extra) {
  const headers = ['case', 'implementation', 'median ms', 'min ms', 'GFLOP/s', '× onnxruntime-web', '(by min)'];
  headers.push(...extra.map(([header]) => header), 'max abs error');
  const lines = [`| ${headers.join(' | ')} |`, `|---|---|${'--:|'.repeat(headers.length - 2)}`];
  for (const spec of cases) {
    const row = (name) => results.find((r) => r.case === spec.name && r.impl === name);
    const ratio = (r, name, field = 'medianMs') => {
      const base = row(name);
      return base?.[field] ? (r[field] / base[field]).toFixed(2) : '–';
    };
    for (const impl of impls.filter((it) => !it.cases || it.cases.includes(spec.name))) {
      const r = row(impl.name);
      if (r?.medianMs === undefined) {
        const why = r?.na ?? `failed: ${r?.failed ?? 'not run'}`;
        lines.push(`| ${spec.name} | ${impl.name} | n/a: ${why} |${' |'.repeat(headers.length - 3)}`);
        continue;
      }
      const base = impl.base ?? 'onnxruntime-web';
      const cells = [
        spec.name,
        impl.name,
        ms(r.medianMs),
        ms(r.minMs),
        (flops(spec) / (r.medianMs * 1e6)).toFixed(1),
        ratio(r, base),
        ratio(r, base, 'minMs'),
        ...extra.map(([, cell]) => cell(r, spec, ratio)),
        r.maxAbsError.toExponential(1),
      ];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  return lines.join('\n');
}
