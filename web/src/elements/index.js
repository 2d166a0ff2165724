// attention-wasm/elements: defines <attention-explorer> and <attention-heatmap>, live attention figures for any page.
// Every import is relative, so the raw files work from a CDN; all elements share one attention-wasm instance.
import { AttentionExplorer } from './explorer.js';
import { AttentionHeatmap } from './heatmapElement.js';

export { AttentionExplorer, AttentionHeatmap };
export { sharedAttention } from './api.js';
export { STEPS } from './steps.js';

for (const [tag, element] of [
  ['attention-explorer', AttentionExplorer],
  ['attention-heatmap', AttentionHeatmap],
]) {
  if (typeof customElements !== 'undefined' && !customElements.get(tag)) customElements.define(tag, element);
}
