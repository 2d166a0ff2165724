// The elements' one stylesheet, adopted by every shadow root (a constructable stylesheet: no <style> element and
// no style="" attribute, so a strict style-src allows it). Colours are classes (w0…w255 for weights, s0…s255 for
// signed values) from the page's one colour table, and grid widths are classes too: nothing is styled inline.
import { COLOR_LEVELS, signedColor, weightColor } from '../shared/colors.js';
import { ELEMENT_LIMITS } from './elementLimits.js';

/**
 * The theme: every custom property an author may set on the element (or an ancestor), with its light default.
 * Dark defaults follow prefers-color-scheme.
 */
const THEME = `
:host {
  --aw-bg: var(--attention-bg, #ffffff);
  --aw-fg: var(--attention-fg, #1b1f24);
  --aw-muted: var(--attention-muted, #57606a);
  --aw-border: var(--attention-border, #d0d7de);
  --aw-panel: var(--attention-panel, #f6f8fa);
  --aw-accent: var(--attention-accent, #0969da);
  --aw-focus: var(--attention-focus, #ff2d95);
  --aw-mark: var(--attention-highlight, #ff2d95);
  --aw-error-bg: var(--attention-error-bg, #fff4e5);
  --aw-error-fg: var(--attention-error-fg, #7a4100);
  --aw-font: var(--attention-font, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  --aw-mono: var(--attention-mono, ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace);
  --aw-radius: var(--attention-radius, 8px);
  --aw-cell: var(--attention-cell-font-size, 0.78rem);
}
@media (prefers-color-scheme: dark) {
  :host {
    --aw-bg: var(--attention-bg, #0d1117);
    --aw-fg: var(--attention-fg, #e6edf3);
    --aw-muted: var(--attention-muted, #9ba6b2);
    --aw-border: var(--attention-border, #30363d);
    --aw-panel: var(--attention-panel, #161b22);
    --aw-accent: var(--attention-accent, #58a6ff);
    --aw-error-bg: var(--attention-error-bg, #3d2a10);
    --aw-error-fg: var(--attention-error-fg, #ffd8a8);
  }
}`;

const LAYOUT = `
:host { display: block; max-width: 100%; min-width: 0; color: var(--aw-fg); font-family: var(--aw-font);
  line-height: 1.45; margin: 1.25rem 0; }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
.box { background: var(--aw-bg); border: 1px solid var(--aw-border); border-radius: var(--aw-radius);
  padding: 0.75rem; min-width: 0; }
.title { font-size: 0.95rem; font-weight: 600; margin: 0 0 0.4rem; }
.sub { color: var(--aw-muted); font-size: 0.82rem; margin: 0.2rem 0 0.5rem; }
.message { background: var(--aw-error-bg); color: var(--aw-error-fg); border-radius: 6px; padding: 0.5rem 0.7rem;
  font-size: 0.88rem; margin: 0.4rem 0; overflow-wrap: anywhere; }
.message ul { margin: 0.3rem 0 0; padding-left: 1.2rem; }
.message[hidden], .pending[hidden] { display: none; }
.pending { color: var(--aw-muted); font-size: 0.88rem; min-height: 6rem; display: grid; place-items: center;
  background: var(--aw-panel); border-radius: 6px; }
.pending.fallback:not([hidden]) { display: block; min-height: 0; background: none; color: inherit; font-size: inherit; }
.pending.fallback > span, .caption[hidden], .export[hidden] { display: none; }
.caption { font-size: 0.88rem; color: var(--aw-muted); margin: 0.5rem 0 0; overflow-wrap: anywhere; }
.export { display: flex; flex-wrap: wrap; gap: 0.4rem; margin-top: 0.5rem; }
.mk { position: relative; }
.mk::after { content: ""; position: absolute; inset: 0; pointer-events: none; border: 0 solid var(--aw-mark); }
.mt::after { border-top-width: 2px; } .mb::after { border-bottom-width: 2px; }
.ml::after { border-left-width: 2px; } .mr::after { border-right-width: 2px; }
.step { border-top: 1px solid var(--aw-border); padding: 0.6rem 0 0.2rem; }
.step:first-of-type { border-top: 0; padding-top: 0; }
.step h3 { font-size: 0.95rem; margin: 0 0 0.3rem; }
.num { display: inline-grid; place-items: center; min-width: 1.4rem; height: 1.4rem; border-radius: 50%;
  background: var(--aw-accent); color: var(--aw-bg); font-size: 0.75rem; margin-right: 0.35rem; }
.step .hm { max-width: var(--attention-heatmap-width, 18rem); }
.step p { margin: 0.25rem 0 0.5rem; font-size: 0.88rem; overflow-wrap: anywhere; }
.row { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 0.4rem 0.6rem; }
.op { align-self: center; color: var(--aw-muted); font-family: var(--aw-mono); }
figure { margin: 0; min-width: 0; max-width: 100%; }
.matrix + .heatmap { margin-top: 0.6rem; }
figcaption { font-size: 0.8rem; font-weight: 600; margin-bottom: 0.15rem; }
figcaption .shape { font-weight: 400; color: var(--aw-muted); margin-left: 0.3rem; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-family: var(--aw-mono); font-size: var(--aw-cell); }
th { color: var(--aw-muted); font-weight: 400; padding: 0 0.3rem; text-align: right; white-space: nowrap;
  max-width: 7rem; overflow: hidden; text-overflow: ellipsis; }
thead th { text-align: center; }
td { padding: 0.1rem 0.35rem; text-align: right; white-space: nowrap; color: #111; border: 1px solid transparent;
  min-width: 2.6rem; }
td.lt { color: #fff; }
td.masked { color: #555; background: repeating-linear-gradient(135deg, #d9d9d9 0 4px, #bdbdbd 4px 6px); }
td.plain { color: var(--aw-fg); }
td.edit { cursor: text; }
td.hl, .cell.hl { outline: 2px solid var(--aw-focus); outline-offset: -2px; }
td.faded { opacity: 0.35; }
td input { width: 4.5rem; font: inherit; padding: 0 0.1rem; }
[role="grid"]:focus-visible td.active, [role="grid"]:focus-visible .cell.active,
td.active:focus-visible { outline: 3px solid var(--aw-focus); outline-offset: -3px; }
[role="grid"]:focus { outline: none; }
[role="grid"]:focus-visible { box-shadow: 0 0 0 2px var(--aw-accent); border-radius: 3px; }
.error { color: var(--aw-error-fg); background: var(--aw-error-bg); font-size: 0.8rem; padding: 0.2rem 0.4rem;
  border-radius: 4px; margin: 0.2rem 0; }
.readout { font-size: 0.85rem; min-height: 2.6em; margin: 0.4rem 0 0; overflow-wrap: anywhere; }
.heads { display: flex; align-items: center; gap: 0.3rem; flex-wrap: wrap; margin: 0 0 0.5rem; font-size: 0.85rem; }
button { font: inherit; font-size: 0.82rem; color: var(--aw-fg); background: var(--aw-panel);
  border: 1px solid var(--aw-border); border-radius: 999px; padding: 0.15rem 0.65rem; cursor: pointer; }
button[aria-pressed="true"] { background: var(--aw-accent); color: var(--aw-bg); border-color: var(--aw-accent); }
button:focus-visible { outline: 2px solid var(--aw-focus); outline-offset: 2px; }
.hm { display: grid; gap: 1px; width: 100%; max-width: var(--attention-heatmap-width, 26rem); margin: 0;
  font-size: 0.75rem; }
.hm .r { display: contents; }
.head-map { flex: 1 1 9rem; max-width: 14rem; min-width: 7rem; }
.head-map .legend span:last-child { display: none; }
.hm .lab { color: var(--aw-muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
.hm .rlab { text-align: right; padding-right: 0.3rem; align-self: center; }
.hm .clab { writing-mode: vertical-rl; transform: rotate(180deg); align-self: end; justify-self: center;
  max-height: 5.5rem; padding-bottom: 0.2rem; }
.hm.across .clab { writing-mode: horizontal-tb; transform: none; max-width: 100%; max-height: none; padding: 0; }
.hm.tiny .lab { font-size: 0; }
.cell { aspect-ratio: 1; min-width: 0; }
.cell.masked { background: repeating-linear-gradient(135deg, #d9d9d9 0 3px, #9a9a9a 3px 4px); }
.legend { display: flex; align-items: center; gap: 0.4rem; font-size: 0.75rem; color: var(--aw-muted);
  margin-top: 0.35rem; }
.legend .bar { width: 8rem; height: 0.6rem; border-radius: 2px;
  background: linear-gradient(90deg, ${[0, 0.25, 0.5, 0.75, 1].map((t) => weightColor(t).css).join(', ')}); }
.legend .bar.signed {
  background: linear-gradient(90deg, ${[-1, -0.5, 0, 0.5, 1].map((t) => signedColor(t, 1).css).join(', ')}); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
.compare { font-family: var(--aw-mono); font-size: var(--aw-cell); }
@media (max-width: 420px) { :host { --aw-cell: var(--attention-cell-font-size, 0.72rem); } .box { padding: 0.5rem; }
  td { min-width: 2.2rem; padding: 0.1rem 0.2rem; } }`;

// One class per colour level and per heatmap width, so that no element needs a style attribute.
function generated() {
  const rules = [];
  for (let k = 0; k < COLOR_LEVELS; k++) {
    rules.push(`.w${k}{background:${weightColor(k / (COLOR_LEVELS - 1)).css}}`);
    rules.push(`.s${k}{background:${signedColor((2 * k) / (COLOR_LEVELS - 1) - 1, 1).css}}`);
  }
  for (let n = 1; n <= ELEMENT_LIMITS.n; n++) {
    rules.push(`.hm.c${n}{grid-template-columns:minmax(2.5rem,max-content) repeat(${n},minmax(0,1fr))}`);
  }
  return rules.join('\n');
}

/** The class of a weight's colour, and whether white text reads better on it. */
export function weightClass(value) {
  const k = Math.round(Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0)) * (COLOR_LEVELS - 1));
  return { cls: `w${k}`, light: weightColor(value).light };
}

/** The class of a signed value's colour relative to the largest magnitude shown. */
export function signedClass(value, maxAbs) {
  const k = Math.round((((maxAbs > 0 ? value / maxAbs : 0) + 1) / 2) * (COLOR_LEVELS - 1));
  return { cls: `s${Math.min(COLOR_LEVELS - 1, Math.max(0, k))}`, light: false };
}

let sheet = null;

/** The shared stylesheet (made once per page). */
export function styleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(`${THEME}\n${LAYOUT}\n${generated()}`);
  }
  return sheet;
}
