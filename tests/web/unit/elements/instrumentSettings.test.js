// What an element's `view` and the instruments' attributes mean (elements/instruments/instrumentSettings.js), and the
// lessons' sentences made from the numbers a figure shows (lessons/instruments/instrumentLessons.js).
import { describe, expect, it } from 'vitest';
import { readInstrument, unsupported } from '../../../../web/src/elements/instruments/instrumentSettings.js';
import { INSTRUMENT_LESSONS, instrumentLesson } from '../../../../web/src/lessons/instruments/instrumentLessons.js';
import { INSTRUMENT_LESSON_IDS } from '../../../../web/src/lessons/instruments/lessonIds.js';

const attrs = (values) => (name) => values[name] ?? null;

describe('readInstrument', () => {
  it('reads the view and its attributes, positions from 0', () => {
    expect(readInstrument(attrs({ view: ' attribution ', target: ' Mary', against: 'John', position: '3' }))).toEqual({
      instrument: { view: 'attribution', target: ' Mary', against: 'John', position: 3, corrupted: null },
      problems: [],
    });
  });

  it('names the nearest view for one that is none, and every view', () => {
    const { instrument, problems } = readInstrument(attrs({ view: 'headscores' }));
    expect(instrument).toBeNull();
    expect(problems).toEqual([
      'view="headscores" is not a view (did you mean "head-scores"?): the views are lens, attribution, patching, head-scores and loss',
    ]);
  });

  it('says what is wrong with a position, an empty target and an empty corrupted prompt', () => {
    const { instrument, problems } = readInstrument(
      attrs({ view: 'lens', position: '-1', target: ' ', corrupted: '' }),
    );
    expect(instrument).toMatchObject({ position: null, target: null, corrupted: null });
    expect(problems).toEqual([
      'position="-1" should be a whole number from 0 (positions count from 0)',
      'corrupted is empty: give the corrupted prompt',
      'target is empty: give a token (a word the model reads as one token) or its id',
    ]);
  });

  it('attribution and loss need a decoder; the lens, patching and head scores do not', () => {
    const bert = { family: 'bert', choices: { causal: false } };
    expect(unsupported('attribution', bert)).toMatch(/^view="attribution": bert predicts masked tokens/);
    expect(unsupported('loss', bert)).toMatch(/no next-token loss to show/);
    for (const view of ['lens', 'patching', 'head-scores']) expect(unsupported(view, bert)).toBeNull();
    expect(unsupported('attribution', { family: 'gpt2', choices: { causal: true } })).toBeNull();
  });
});

describe('the lessons on the instruments', () => {
  it('are the link table’s ids, in its order', () => {
    expect(INSTRUMENT_LESSONS.map((l) => l.id)).toEqual([...INSTRUMENT_LESSON_IDS]);
  });

  it('put the attribution in words: the last layer’s heads, layer 0’s, the MLPs, the sum', () => {
    const view = {
      heads: [
        [0.1, -0.2],
        [1, 2],
      ],
      parts: [
        { key: 'embeddings', value: 0.5 },
        { key: 'mlp0', value: -0.25 },
        { key: 'mlp1', value: 1.5 },
      ],
      total: 4.65,
      sum: 4.65,
    };
    expect(instrumentLesson('head-writes').say({ shaped: view })).toBe(
      'On the shipped model, the run gives “ball” a logit of 4.65. The four heads of layer 1 write 3.00 of it (L1H0 +1.00, L1H1 +2.00); the heads of layer 0 together −0.10; the MLPs −0.25 and +1.50, the embeddings +0.50. Every part added up gives 4.65, the logit itself.',
    );
  });

  it('put the sweeps in words: the position that restores most entering each layer, and every head', () => {
    const tensor = (data, shape) => ({ data: Float32Array.from(data), shape });
    const sweeps = {
      input: { scores: tensor([0, 1, 0, 0, 0, 0.9], [2, 3]) },
      headOutput: { scores: tensor([0.7, -0.001, 0.1, 0.2], [2, 2]) },
    };
    expect(instrumentLesson('patching').say({ sweeps }, ['a', 'red', 'ball'])).toBe(
      'Patched from the clean run into the corrupted one: entering layer 0, position 1 (“red”) restores 1.00; entering layer 1, position 2 (“ball”) restores 0.90. Of the heads (at every position): L0H0 0.70, L0H1 0.00, L1H0 0.10, L1H1 0.20.',
    );
  });
});
