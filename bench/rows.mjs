// The command line and the rows (implementations and their variants) of both bench runners: run.mjs (Node, a
// process per row) and browser.mjs (Chromium, a page per row). A row names its implementation (impls/*.mjs) and
// the settings it is made with; `cases` limits it to some cases, `base` names the row its ratios divide by.
import { FULL_CASES, QUICK_CASES } from './cases.mjs';

const REUSE_CASES = ['n=16', 'n=128', 'n=512', '12 heads × 512', '2 heads × 33'];
const TWO_CORE_CASES = ['12 heads × 512', '2 heads × 33'];

const ROWS = [
  { name: 'attention-wasm', impl: 'attention-wasm' },
  { name: 'onnxruntime-web', impl: 'onnxruntime-web' },
  { name: 'native', native: true },
  { name: 'tfjs-wasm', impl: 'tfjs-wasm' },
  { name: 'js-loops', impl: 'js-loops' },
  // Results into the same arrays at every call (options.out), against onnxruntime-web's fresh arrays: its
  // pre-allocated fetches came back as zeros with the wasm backend (1.30), so it has no such row.
  { name: 'attention-wasm, reused outputs', impl: 'attention-wasm', settings: { reuse: true }, cases: REUSE_CASES },
  // Two cores each, on the case that splits over heads; their ratio column compares the two with each other.
  {
    name: 'attention-wasm, 2 workers',
    impl: 'attention-wasm',
    settings: { workers: 2 },
    cases: TWO_CORE_CASES,
    base: 'onnxruntime-web, 2 threads',
  },
  {
    name: 'onnxruntime-web, 2 threads',
    impl: 'onnxruntime-web',
    settings: { threads: 2 },
    cases: TWO_CORE_CASES,
    base: 'onnxruntime-web, 2 threads',
  },
];

/**
 * [--quick] [--native <binary>] [--impls a,b] [--cases n=512,...] [--out <file>]; BENCH_QUICK=1 is --quick.
 * @param {string[]} argv
 * @param {{ native: boolean }} runner  whether the runner has a native row (--native)
 * @returns {{ args, rows, cases }}  the options, the rows asked for (all by default) and the cases
 */
export function parseBenchArgs(argv, { native }) {
  const args = { quick: process.env.BENCH_QUICK === '1', native: null, impls: null, cases: null, out: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') args.quick = true;
    else if (a === '--native' && native) args.native = argv[++i];
    else if (a === '--impls')
      args.impls = argv[++i].split(/,(?! )/); // names may hold ', '
    else if (a === '--cases') args.cases = argv[++i].split(',');
    else if (a === '--out') args.out = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  const rows = ROWS.filter((row) => (native || !row.native) && (!args.impls || args.impls.includes(row.name)));
  const cases = (args.quick ? QUICK_CASES : FULL_CASES).filter((c) => !args.cases || args.cases.includes(c.name));
  return { args, rows, cases };
}
