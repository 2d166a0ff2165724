// A model source typed by a person (a text field, an element's `model` attribute, a link's `model=`) read into what
// loadModel takes: a folder URL or a `{ hub }` model. One parser for every place a source is typed, so that they
// all take the same texts. Names of the caller's own (a model shipped with a page, say) are the caller's to read first.
import { AttentionError, describe } from '../errors.js';
import { guarded, readRecord } from '../read.js';
import { HUB_URL, checkRevision, folderUrl, httpUrl } from './sources-url.js';

const PART = '[A-Za-z0-9][\\w.-]{0,95}';
const HUB_ID = new RegExp(`^(${PART}/${PART})(?:@([\\w./-]{1,128}))?$`, 'u');
const RELATIVE = /^(?:\.{1,2}[\\/]|[\\/])/u; // ./x, ../x, /x (and their backslash forms, which URLs read alike)
const MAX_TEXT = 2048;

const bad = (text, why) =>
  new AttentionError(
    'BAD_OPTION',
    `${JSON.stringify(String(text).slice(0, 120))} ${why}: a model source is a folder URL (https://…/folder/, or ./folder/ and /folder/ with a base) or a Hub model id (owner/name, or owner/name@revision)`,
  );

/** An address of the Hub's own site for a model (its page, a tree, a resolve folder): { hub, revision } or null. */
function hubPage(url, hubRoot) {
  const root = new URL(hubRoot);
  const prefix = root.pathname.replace(/\/+$/u, '');
  if (url.origin !== root.origin || !url.pathname.startsWith(`${prefix}/`)) return null;
  const path = url.pathname.slice(prefix.length);
  const match = new RegExp(`^/(${PART}/${PART})(?:/(?:tree|resolve)/([\\w.-]{1,128}))?/?$`, 'u').exec(path);
  if (!match || /^(?:datasets|spaces)\//u.test(match[1])) return null;
  return { hub: match[1], ...(match[2] ? { revision: match[2] } : {}) };
}

/**
 * Reads a typed model source into what loadModel takes. Never a file path: in Node, pass a path to loadModel itself.
 *
 * | text                                          | result                                             |
 * |-----------------------------------------------|----------------------------------------------------|
 * | `https://host/folder` (http or https)          | `'https://host/folder/'` (query and fragment dropped) |
 * | `./folder/`, `../folder/`, `/folder/`          | the same, resolved against `base` (required)        |
 * | `owner/name`                                  | `{ hub: 'owner/name' }`                             |
 * | `owner/name@revision` (branch, tag or commit) | `{ hub: 'owner/name', revision }`                   |
 * | the Hub's page of a model (`…/owner/name`, `…/owner/name/tree/revision`) | `{ hub, revision? }` |
 *
 * With `hub` (a mirror of the Hub's layout), each `{ hub }` result carries it as its `base`, and that mirror's
 * model pages are read as the Hub's are. Anything else is an AttentionError BAD_OPTION that says what a source is.
 * @param {string} text
 * @param {{ base?: string | URL, hub?: string | URL }} [options]
 * @returns {string | { hub: string, revision?: string, base?: string }}
 */
export function parseModelSource(text, options) {
  const { base, hub } = readRecord(options, 'parseModelSource options', ['base', 'hub'], 'option');
  if (typeof text !== 'string')
    throw new AttentionError('BAD_OPTION', `a model source must be text, got ${describe(text)}`);
  const value = text.trim();
  if (!value || value.length > MAX_TEXT) throw bad(value, value ? 'is too long' : 'is empty');
  if (hub !== undefined && typeof hub !== 'string' && !(hub instanceof URL))
    throw new AttentionError('BAD_OPTION', `hub must be the Hub's (or a mirror's) http(s) URL, got ${describe(hub)}`);
  const hubRoot = hub === undefined ? HUB_URL : folderUrl(hub); // checks it is an http(s) URL
  const withBase = (found) => (hub === undefined ? found : { ...found, base: hubRoot.replace(/\/+$/u, '') });
  const id = HUB_ID.exec(value);
  if (id) return withBase({ hub: id[1], ...(id[2] ? { revision: checkRevision(id[2]) } : {}) });
  const relative = RELATIVE.test(value);
  if (relative && base === undefined)
    throw bad(value, 'is a relative URL, and no base was given to resolve it against');
  let url = null;
  try {
    if (/^https?:\/\//iu.test(value)) url = httpUrl(value, 'a model URL');
    else if (relative) url = new URL(value, base instanceof URL ? base.href : String(base));
  } catch {
    throw bad(value, relative ? `cannot be resolved against base ${describe(base)}` : 'is not a valid URL');
  }
  if (!url || !/^https?:$/u.test(url.protocol)) throw bad(value, 'is neither');
  // `//host/m` and `/\\host/m` are relative to the base's scheme only: they name another host. Written in full, such
  // a source says so; typed as relative, it is refused rather than read from a host the text does not seem to name.
  if (relative && url.origin !== new URL(base instanceof URL ? base.href : String(base)).origin) {
    throw bad(value, `names another host (${url.host}) than the base's: write its URL in full, https://…`);
  }
  const page = hubPage(url, hubRoot);
  return page ? withBase(page) : folderUrl(url);
}

/**
 * The folder URL loadModel reads a web source from (ending in '/'): a folder URL as it is, a `{ hub, revision, base }`
 * model as `${base}/${hub}/resolve/${revision}/`. For a cache's keys, a link, or the files a page reads beside it.
 * @param {string | URL | { hub: string, revision?: string, base?: string | URL }} source
 * @returns {string}
 */
export function modelFolderUrl(source) {
  return guarded('BAD_OPTION', 'the model source', () => folderUrl(source));
}
