// Investigate's fields filled from a link's values (app/link.js's inv rows): the page's link opens a tab with its
// inputs (investigate.js's setModel).

/**
 * Fills tab `tab`'s fields from a link's values (app/link.js's invTarget, invAgainst, invPosition, invClean,
 * invCorrupted; the prompts whatever the tab); returns the lens's (its token and position, followed once drawn) or null.
 */
export function fillInputs(views, tab, link) {
  const { attribution, patching } = views;
  if (link.invClean !== undefined) patching.clean.value = link.invClean;
  if (link.invCorrupted !== undefined) patching.corrupted.value = link.invCorrupted;
  const token = (value) => value ?? '';
  if (tab === 'attribution') {
    attribution.a.input.value = token(link.invTarget);
    attribution.b.input.value = token(link.invAgainst);
  }
  if (tab === 'patching') {
    patching.a.value = token(link.invTarget);
    patching.b.value = token(link.invAgainst);
    patching.position.value = link.invPosition === undefined ? '' : String(link.invPosition);
  }
  return tab === 'lens' ? link : null;
}
