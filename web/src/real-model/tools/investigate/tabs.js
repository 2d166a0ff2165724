// The Investigate part's tabs, keyed as a link's inv= names them (app/link.js), with the names their buttons read:
// here alone, so that the page's link table and the lessons that link to a tab know them without loading the part.

/** The tabs, in order: key, name. */
export const TABS = Object.freeze([
  ['lens', 'Logit lens'],
  ['attribution', 'Attribution'],
  ['patching', 'Patching'],
  ['scores', 'Head scores'],
  ['loss', 'Loss'],
]);

/** The tabs' keys, in order. */
export const TAB_KEYS = Object.freeze(TABS.map(([key]) => key));

/** A tab's name, by its key. */
export const tabName = (key) => TABS.find(([k]) => k === key)?.[1];
