// The layers of web/src and which may import which: the data that scripts/check-imports.mjs (npm run lint) checks
// the project's import graph against. A module's layer is the first of LAYERS its path matches; a module of a layer
// that no rule names ('other': tests, scripts, bench) may import anything.
import { exportTargets } from './import-graph.mjs';

/** The layers, first match first. `match` takes the project-relative path and the package's entries. */
export const LAYERS = [
  { layer: 'dom', match: /^web\/src\/shared\/dom\.js$/, is: "the page's DOM helper" },
  { layer: 'shared', match: /^web\/src\/shared\//, is: 'a shared pure module' },
  { layer: 'lesson view', match: /^web\/src\/lessons\/[^/]+\/[^/]*(View|Panel)\.js$/, is: "a lesson's view" },
  { layer: 'lesson', match: /^web\/src\/lessons\//, is: "a lesson's pure module" },
  { layer: 'elements', match: /^web\/src\/elements\//, is: 'an element module' },
  { layer: 'page', match: /^web\/src\//, is: 'a page module' },
  { layer: 'entry', match: (path, entries) => entries.has(path), is: "an entry of the package's exports" },
  { layer: 'package', match: /^src\/js\//, is: "the package's internal module" },
  { layer: 'other', match: /^/, is: 'outside web/src and src/js' },
];

const WEB = ['dom', 'shared', 'lesson view', 'lesson', 'elements', 'page'];

/**
 * Who may import whom. `also`: modules of other layers a layer may import all the same, each with its reason.
 * @type {{ from: string[], may: string[], also?: Record<string, string>, rule: string }[]}
 */
export const RULES = [
  {
    from: ['shared'],
    may: ['shared'],
    rule: 'a shared module is pure: it imports only shared pure modules (no view, no DOM helper, no lesson)',
  },
  { from: ['dom'], may: ['shared'], rule: 'the DOM helper imports only shared pure modules' },
  {
    from: ['lesson'],
    may: ['shared', 'lesson'],
    rule: "a lesson's pure module imports only shared and lesson pure modules (no view, no DOM helper)",
  },
  {
    from: ['elements'],
    may: ['elements', 'dom', 'shared', 'lesson', 'entry'],
    also: {
      'src/js/tensor.js': "a model figure's Tensor, without loading the API before it is needed (modelFigure.js)",
      'src/js/wasm-bytes.js': 'a build as a script module, for a CDN under a strict CSP (api.js)',
      'src/js/model/tokenizer.js': "the tokenizer's fallback for the raw files (sharedModel.js)",
    },
    rule: "the elements import only shared/, the lessons' pure modules and the package's entries",
  },
  {
    from: ['page', 'lesson view'],
    may: [...WEB, 'entry'],
    rule: "the page imports the package only through its entries (package.json's exports)",
  },
  { from: ['entry', 'package'], may: ['entry', 'package'], rule: 'the package (src/js) imports nothing of web/src' },
];

/** The .js files package.json's exports name, project-relative: the package's entries. */
export const packageEntries = (pkg) => new Set(exportTargets(pkg).filter((t) => t.endsWith('.js')));

/** The layer of a project-relative path. */
export function layerOf(path, entries) {
  return LAYERS.find(({ match }) => (typeof match === 'function' ? match(path, entries) : match.test(path)));
}

/**
 * Every import that breaks a rule, as a sentence naming both modules, their layers and the rule.
 * @param {Map<string, string[]>} graph  module → the modules it imports (project-relative)
 * @param {Set<string>} entries  packageEntries(package.json)
 * @returns {string[]}
 */
export function layerViolations(graph, entries) {
  const problems = [];
  for (const [from, tos] of graph) {
    const source = layerOf(from, entries);
    const rule = RULES.find((r) => r.from.includes(source.layer));
    if (!rule) continue;
    for (const to of tos) {
      const target = layerOf(to, entries);
      if (rule.may.includes(target.layer) || rule.also?.[to]) continue;
      problems.push(`${from} (${source.is}) imports ${to} (${target.is}): ${rule.rule}`);
    }
  }
  return problems;
}
