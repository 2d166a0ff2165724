// run's `layers` option: the first layers alone, with only their weights read. What a view of one early layer
// (an element's heatmap) asks for, so that a 12-layer checkpoint is not read whole to show layer 2.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { gpt2Fixture } from './fixtures.js';

describe('run({ layers })', () => {
  it('gives the same first layers as a whole run, reads fewer bytes, and no logits', async () => {
    const fixture = gpt2Fixture({ layers: 3 });
    const model = await loadModel(fixture.files, { residentBytes: 0 }); // read at every run
    const ids = [3, 1, 4, 1, 5];
    const whole = await model.run({ ids });
    const before = model.bytesRead;
    await model.run({ ids });
    const wholeBytes = model.bytesRead - before;
    const first = model.bytesRead;
    const part = await model.run({ ids }, { layers: 2, capture: [{ layer: 1, head: 0 }] });
    const partBytes = model.bytesRead - first;
    expect(part.attentions).toHaveLength(2);
    expect(part.hiddenStates).toHaveLength(3);
    for (let l = 0; l < 2; l++)
      expect(Array.from(part.attentions[l].data)).toEqual(Array.from(whole.attentions[l].data));
    expect(Array.from(part.captures[0].weights.data)).toEqual(
      Array.from(whole.attentions[1].data.subarray(0, ids.length * ids.length)),
    );
    expect(part.logits).toBeNull();
    expect(part.next).toBeNull();
    expect(partBytes).toBeLessThan(wholeBytes);
  });

  it('gives its progress events the total of the layers it reads', async () => {
    const events = [];
    const model = await loadModel(gpt2Fixture({ layers: 3 }).files, { onProgress: (e) => events.push(e) });
    await model.run({ ids: [1, 2, 3] }, { layers: 2 });
    const done = events.filter((e) => e.phase === 'done').at(-1);
    expect(done.total).toBe(done.loaded);
    expect(events.filter((e) => e.phase === 'layer').map((e) => e.layer)).toEqual([0, 1]);
  });

  it('rejects a count outside 1 to num_layers, and a capture beyond the layers run', async () => {
    const model = await loadModel(gpt2Fixture({ layers: 2 }).files);
    for (const layers of [0, 3, 1.5, '1'])
      await expect(model.run({ ids: [1] }, { layers })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(model.run({ ids: [1] }, { layers: 1, capture: [{ layer: 1, head: 0 }] })).rejects.toMatchObject({
      code: 'BAD_OPTION',
    });
  });
});
