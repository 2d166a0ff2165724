// Where the model shipped in the package is (web/public/models/induction: a 2-layer GPT-2 trained with a
// previous-token head and induction heads), as a URL that loadModel takes: beside this file where the package's files
// are read as they are (Node, a CDN, a server of node_modules), and where a bundled app copies the folder otherwise.

// Not a literal inside new URL(…), so that bundlers neither rewrite it nor try to emit a folder as an asset.
const FOLDER = '../../../web/public/models/induction/';
/** Where an app that bundles the package serves the folder (docs/model.md's recipe copies it there). */
export const COPIED_FOLDER = 'models/induction/';
const THIS_FILE = '/src/js/model/builtin.js';

/** The page's (or a worker's) base URL, or undefined outside a browser. Deno throws on `location` without --location. */
function pageUrl() {
  try {
    return globalThis.document?.baseURI ?? globalThis.location?.href;
  } catch {
    return undefined;
  }
}

/**
 * The built-in model's folder for a module at `moduleUrl`: beside it when the module is this file served as it is
 * (http(s), or file: outside a browser); in a bundle (another file name, or webpack's file: URL in a page) the
 * folder a page serves at `models/induction/` under its base URL.
 * @param {string} moduleUrl  this module's URL (import.meta.url, which a bundler may rewrite)
 * @param {string} [page]  the page's base URL; none outside a browser
 * @returns {URL}
 */
export function builtinModelUrl(moduleUrl, page) {
  const here = new URL(moduleUrl);
  const asShipped = here.pathname.endsWith(THIS_FILE);
  if (page === undefined || (asShipped && here.protocol !== 'file:')) return new URL(FOLDER, here);
  return new URL(COPIED_FOLDER, page);
}

/** The folder of the model shipped in the package, as a URL for loadModel (see the declaration for where). */
export const BUILTIN_MODEL = builtinModelUrl(import.meta.url, pageUrl());
