// What the real model runs again after a change (web/src/real-model/run/rerun.js): the first layer whose ablations or edits
// differ, the options of a run from that layer, and its result completed with the last run's earlier layers.
import { describe, expect, it } from 'vitest';
import { firstChangedLayer, fromOptions, mergeRun } from '../../../../web/src/real-model/run/rerun.js';

const edit = (layer, value, step = 'x') => ({ layer, step, row: 0, col: 1, value });

describe('real model: running again from the first layer changed', () => {
  it('finds the first layer whose ablations or edits differ, in any order; null when none does', () => {
    const none = { ablate: [], edits: [] };
    expect(firstChangedLayer(none, none)).toBeNull();
    expect(firstChangedLayer(none, { ablate: [[5, 1]], edits: [] })).toBe(5);
    const last = {
      ablate: [
        [2, 0],
        [7, 3],
      ],
      edits: [edit(4, 1)],
    };
    expect(
      firstChangedLayer(last, {
        ablate: [
          [7, 3],
          [2, 0],
        ],
        edits: [edit(4, 1)],
      }),
    ).toBeNull();
    expect(firstChangedLayer(last, { ablate: [[2, 0]], edits: [edit(4, 1)] })).toBe(7); // a head switched on again
    expect(firstChangedLayer(last, { ablate: last.ablate, edits: [edit(4, 2)] })).toBe(4); // another value
    expect(firstChangedLayer(last, { ablate: last.ablate, edits: [edit(4, 1), edit(3, 1, 'wq')] })).toBe(3);
    expect(
      firstChangedLayer(last, {
        ablate: [
          [2, 1],
          [7, 3],
        ],
        edits: last.edits,
      }),
    ).toBe(2);
  });

  it('runs from that layer’s input with the later ablations and edits only, or that layer alone', () => {
    const hiddenStates = ['h0', 'h1', 'h2', 'h3'];
    const settings = {
      ablate: [
        [0, 1],
        [1, 0],
        [2, 2],
      ],
      edits: [edit(0, 1), edit(2, 3)],
    };
    expect(fromOptions({ hiddenStates }, 1, settings)).toEqual({
      from: { layer: 1, hiddenState: 'h1' },
      ablate: [
        [1, 0],
        [2, 2],
      ],
      edits: [edit(2, 3)],
    });
    expect(fromOptions({ hiddenStates }, 2, settings, true)).toEqual({
      from: { layer: 2, hiddenState: 'h2' },
      ablate: [[2, 2]],
      edits: [edit(2, 3)],
      layers: 3,
    });
  });

  it('completes a run from a layer with the last run’s earlier attentions and hidden states', () => {
    const last = { attentions: ['a0', 'a1', 'a2'], hiddenStates: ['h0', 'h1', 'h2', 'h3'], next: 'old' };
    const part = { attentions: [null, 'b1', 'b2'], hiddenStates: [null, 'h1', 'g2', 'g3'], next: 'new' };
    expect(mergeRun(last, part, 1)).toEqual({
      attentions: ['a0', 'b1', 'b2'],
      hiddenStates: ['h0', 'h1', 'g2', 'g3'],
      next: 'new',
    });
    expect(mergeRun(undefined, last, 0)).toBe(last); // a whole run, as it is
  });
});
