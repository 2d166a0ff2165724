// Counting layers and heads from 0 (web/src/shared/counting.js): the names, and a layer, head or heads switched off
// written counted from 1 (the page's older labels) told apart by the counts of the model.
import { describe, expect, it } from 'vitest';
import { countsText, headName, headNames, readCounts } from '../../../../web/src/shared/counting.js';

const INDUCTION = { numLayers: 2, numHeads: 4 };

describe('counting from 0', () => {
  it('names heads as L0H2', () => {
    expect(headName(0, 2)).toBe('L0H2');
    expect(
      headNames([
        [1, 0],
        [1, 3],
      ]),
    ).toBe('L1H0, L1H3');
    expect(countsText(INDUCTION)).toBe('layers 0 to 1, heads 0 to 3');
    expect(countsText({ numHeads: 1 })).toBe('head 0');
  });

  it('keeps what fits counted from 0', () => {
    expect(readCounts({ layer: 1, head: 3, ablate: [[0, 0]] }, INDUCTION)).toEqual({
      layer: 1,
      head: 3,
      ablate: [[0, 0]],
      fromOne: false,
      outside: [],
    });
    expect(readCounts({}, INDUCTION)).toMatchObject({ layer: null, head: null, ablate: [], fromOne: false });
  });

  it("reads the issue's link written from the older labels (layer 2 head 1, ablate 2.1) counted from 1", () => {
    expect(readCounts({ layer: 2, head: 1, ablate: [[2, 1]] }, INDUCTION)).toEqual({
      layer: 1,
      head: 0,
      ablate: [[1, 0]],
      fromOne: true,
      outside: [],
    });
    expect(readCounts({ layer: 1, head: 4 }, INDUCTION)).toMatchObject({ layer: 0, head: 3, fromOne: true });
    expect(readCounts({ head: 2 }, { numHeads: 2 })).toMatchObject({ head: 1, fromOne: true });
  });

  it('names what fits neither way and keeps the rest', () => {
    expect(
      readCounts(
        {
          layer: 7,
          head: 0,
          ablate: [
            [0, 1],
            [0, 9],
          ],
        },
        INDUCTION,
      ),
    ).toEqual({
      layer: null,
      head: 0,
      ablate: [[0, 1]],
      fromOne: false,
      outside: [
        { name: 'layer', text: '7' },
        { name: 'ablate', text: '0.9' },
      ],
    });
    // a 0 cannot be counted from 1
    expect(readCounts({ layer: 0, head: 4 }, INDUCTION)).toMatchObject({
      layer: 0,
      head: null,
      outside: [{ name: 'head', text: '4' }],
    });
  });
});
