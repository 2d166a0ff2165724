// scripts/sizes.mjs, the README's size table: it measures every browser entry, and what a page with the elements
// loads stays within their budget of 150 kB gzipped (once attention-wasm/elements exists). Run by node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sizes } from '../../scripts/sizes.mjs';

test('every browser entry is measured, and the elements stay within their budget', async () => {
  const rows = await sizes();
  const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
  const main = byName['attention-wasm'];
  assert.ok(main.wasm > 30_000 && main.loaded > main.wasm && main.onDemand > 0, JSON.stringify(main));
  const inline = byName['attention-wasm/inline'];
  assert.ok(inline && inline.wasm === 0 && inline.loaded > main.wasm, JSON.stringify(inline));
  assert.equal(byName['attention-wasm/elements']?.budget, 150_000, 'the elements’ budget is 150 kB (issue 11)');
  for (const row of rows.filter((r) => r.budget)) {
    assert.ok(row.loaded <= row.budget, `${row.name} loads ${row.loaded} bytes gzipped, over ${row.budget}`);
  }
});
