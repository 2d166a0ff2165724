// The stylesheet of the instruments' views (lensView.js, attributionView.js, …) inside an element: the page styles
// the same class names in web/src/css/investigate.css with its own colours; here they take the elements' theme
// (--aw-…). Constructable, so a strict style-src allows it; loaded with the views, only for an element with `view`.
const RULES = `
.inv-figure h4 { margin: 0.6rem 0 0.2rem; font-size: 0.85rem; }
.hint { color: var(--aw-muted); font-size: 0.8rem; margin: 0.25rem 0; }
.inline-error { color: var(--aw-error-fg); background: var(--aw-error-bg); padding: 0.3rem 0.5rem; border-radius: 4px; font-size: 0.82rem; }
.inv-fields { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: flex-end; margin: 0.4rem 0; }
.field { display: flex; flex-direction: column; gap: 0.1rem; font-size: 0.8rem; margin: 0.3rem 0; }
.field.inline { display: inline-flex; margin: 0; }
.field input, select { font: inherit; font-size: 0.82rem; max-width: 100%; color: var(--aw-fg); background: var(--aw-bg); border: 1px solid var(--aw-border); border-radius: 4px; padding: 0.1rem 0.3rem; }
.check { font-size: 0.8rem; }
.inv-actions { display: flex; gap: 0.5rem; }
.inv-grid-wrap { overflow-x: auto; max-width: 100%; }
.inv-grid { border-collapse: collapse; font-size: 0.66rem; font-variant-numeric: tabular-nums; }
.inv-grid th { font-weight: 500; color: var(--aw-muted); padding: 1px 4px; white-space: nowrap; }
.inv-grid thead th { max-width: 4.5em; overflow: hidden; text-overflow: ellipsis; }
.inv-grid tbody th { text-align: right; max-width: none; }
.inv-cell { border: 1px solid var(--aw-bg); padding: 0; min-width: 2.4em; max-width: 4.2em; height: 2.3em; text-align: center; color: #111; }
.light-text { color: #fff !important; }
.inv-cell.pending { background: var(--aw-panel); color: var(--aw-muted); }
.inv-cell.followed { outline: 2px solid var(--aw-focus); outline-offset: -2px; }
.inv-cell-text, .inv-cell-sub { display: block; line-height: 1.15; padding: 0 2px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.inv-cell-sub { font-size: 0.66rem; opacity: 0.85; }
.inv-cell-button { all: unset; display: block; width: 100%; height: 100%; cursor: pointer; padding: 2px 0; }
.inv-cell-button:focus-visible { outline: 2px solid var(--aw-focus); }
.inv-line-svg { width: 100%; max-width: 420px; height: auto; }
.inv-axis { stroke: var(--aw-muted); stroke-width: 1; }
.inv-axis.faint { stroke-dasharray: 3 3; opacity: 0.6; }
.inv-tick { font-size: 10px; fill: var(--aw-muted); }
.inv-polyline { fill: none; stroke: var(--aw-accent); stroke-width: 2; }
.inv-point { fill: var(--aw-accent); }
.inv-pair { display: flex; flex-wrap: wrap; gap: 0.8rem 1.6rem; align-items: flex-start; }
.inv-pair[hidden] { display: none; }
.inv-pair h5, .inv-patching h5 { margin: 0.6rem 0 0.2rem; font-size: 0.82rem; }
.inv-parts, .inv-scores { border-collapse: collapse; font-size: 0.8rem; font-variant-numeric: tabular-nums; }
.inv-parts th, .inv-scores th { text-align: left; font-weight: 500; padding: 1px 8px 1px 0; }
.inv-parts td, .inv-scores td { padding: 1px 8px; text-align: right; color: #111; }
.inv-parts th, .inv-scores th { max-width: none; font-family: var(--aw-font); }
.inv-figure td.num { display: table-cell; min-width: 0; height: auto; border-radius: 0; background: transparent;
  color: #111; font-size: inherit; font-weight: inherit; text-align: right; }
.inv-parts tr[data-part="total"] td { color: var(--aw-fg); }
.inv-parts tr[data-part="total"] { border-top: 1px solid var(--aw-border); font-weight: 600; }
.inv-sort { all: unset; cursor: pointer; font-weight: 600; }
.inv-sort:focus-visible { outline: 2px solid var(--aw-focus); }
.inv-loss { display: flex; flex-wrap: wrap; gap: 3px; list-style: none; padding: 0; margin: 0.4rem 0; }
.inv-loss-token { display: inline-flex; flex-direction: column; align-items: center; padding: 2px 6px; border: 1px solid var(--aw-border); border-radius: 4px; font-size: 0.82rem; color: #111; }
.inv-loss-value { font-size: 0.7rem; font-variant-numeric: tabular-nums; }
.inv-patching input[type="text"] { max-width: 100%; }`;

let sheet = null;

/** The views' stylesheet (made once per page), adopted beside the elements' own. */
export function instrumentSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(RULES);
  }
  return sheet;
}
