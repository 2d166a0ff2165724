// The real-model panel's part of the page's link, written into the address 100 ms after the last change: what the
// session holds of it (session.js's link(): model, sentence or ids, the head open, heads switched off, edits) and
// the Investigate part's tab and inputs (its link()), and the same link opening at each part of the section (section=,
// the parts' links: partLinks.js).
import { writeInvestigateLink, writeModelLink } from './realModel.js';

/** Writes the link 100 ms after the last change, as the page's hash (a history write takes 5–30 ms here). */
export function writeLinkSoon(panel) {
  const link = panel.session.link();
  const investigate = panel.investigate.link();
  clearTimeout(panel.linkTimer);
  panel.linkTimer = setTimeout(() => {
    const search = writeInvestigateLink(writeModelLink(location.search, link), investigate);
    if (search !== location.search) history.replaceState(null, '', `${search}${location.hash}`);
    const at = (section) => new URL(`${writeModelLink(search, { ...link, section })}${location.hash}`, location.href);
    panel.ui.parts.set((section) => at(section).href); // each part's link: this one, opening there
  }, 100);
}
