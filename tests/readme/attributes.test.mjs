// The README's table of the elements' attributes is the one scripts/gen-attributes.mjs makes from the list the
// elements read (web/src/elements/config.js), so an attribute cannot be added, renamed or dropped without it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { attributeTable, withAttributeTable } from '../../scripts/gen-attributes.mjs';
import { OWN_ATTRIBUTES, SETTINGS } from '../../web/src/elements/config.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test("the README's attribute table is generated from the elements' own list (node scripts/gen-attributes.mjs --readme)", () => {
  assert.equal(withAttributeTable(readme), readme);
  const table = attributeTable();
  for (const name of [...SETTINGS, ...Object.values(OWN_ATTRIBUTES).flat()])
    assert.match(table, new RegExp(`\\| \`${name}\``));
});
