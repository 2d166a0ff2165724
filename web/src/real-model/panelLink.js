// The real-model panel's part of the page's link: what it holds (model, sentence or ids, the head open, heads
// switched off, edits), read by the link and by Embed…, and its write into the address, 100 ms after the last change.
import { writeModelLink } from './realModel.js';

/** What a link (and Embed…) holds of the panel: model, sentence (`ids`: token ids), head, heads off and edits. */
export function linkValues(panel) {
  return {
    model: panel.source,
    text: panel.ui.text.value,
    ids: !panel.model?.hasTokenizer,
    layer: panel.selected?.layer,
    head: panel.selected?.head,
    ablate: panel.ablate,
    edits: panel.edits,
  };
}

/** Writes the link 100 ms after the last change, as the page's hash (a history write takes 5–30 ms here). */
export function writeLinkSoon(panel) {
  const link = linkValues(panel);
  clearTimeout(panel.linkTimer);
  panel.linkTimer = setTimeout(() => {
    const search = writeModelLink(location.search, link);
    if (search !== location.search) history.replaceState(null, '', `${search}${location.hash}`);
  }, 100);
}
