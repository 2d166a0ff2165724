// The table of the elements' attributes (docs/elements.md) is the one scripts/gen-attributes.mjs makes from the list
// the elements read (web/src/elements/attributes.js), so an attribute cannot be added, renamed or dropped without it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DOCS, attributeTable, withAttributeTable } from '../../scripts/gen-attributes.mjs';
import { OWN_ATTRIBUTES, SETTINGS } from '../../web/src/elements/attributes.js';

const docs = readFileSync(DOCS, 'utf8');

test("the elements' attribute table is generated from their own list (node scripts/gen-attributes.mjs --docs)", () => {
  assert.equal(withAttributeTable(docs), docs);
  const table = attributeTable();
  for (const name of [...SETTINGS, ...Object.values(OWN_ATTRIBUTES).flat()])
    assert.match(table, new RegExp(`\\| \`${name}\``));
});
