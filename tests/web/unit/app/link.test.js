// The page's URL in one table (web/src/app/link.js's LINK: the hash's rows, shared/link.js, then the query's): the links it writes are those of the page before the table
// (but for the hash's version and its head, now counted from 0), every row reads back what it writes, the query's
// parts keep each other's keys, an older link's head counted from 1 is read as it meant and said, and what cannot be
// read is named.
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../../../web/src/shared/examples.js';
import { GENERATE_DEFAULTS, LINK, generateSettings, readQuery, writeQuery } from '../../../../web/src/app/link.js';
import { decodeState, encodeState } from '../../../../web/src/shared/link.js';
import '../../../../web/src/lessons/designed-heads/designedHeads.js'; // the designed matrices of design=1
import { currentMatrix } from '../../../../web/src/shared/matrices.js';
import { defaultState, withSizes } from '../../../../web/src/shared/state.js';
import { readModelLink, writeModelLink } from '../../../../web/src/real-model/realModel.js';
import { readGenerateLink, writeGenerateLink } from '../../../../web/src/real-model/tools/generate/generation.js';

const example = (id) => EXAMPLES.find((e) => e.id === id).state();

describe('the link table', () => {
  it('writes the hashes the page wrote before the table (version 3, the head counted from 0)', () => {
    expect(encodeState(example('heads'))).toBe(
      'v=3&s=time+flies+like+an+arrow&n=5&dm=16&dk=4&dv=4&h=4&seed=42&dist=normal&p=3&causal=0&scale=1&t=1&tie=0&pos=0&head=0',
    );
    expect(encodeState(example('worked'))).toBe(
      'v=3&s=A+B&n=2&dm=2&dk=2&dv=2&h=1&seed=42&dist=normal&p=6&causal=0&scale=1&t=1&tie=0&pos=0&x=1,0;0,1&wq=1,0;0,1&wk=1,0;0,1&wv=1,2;3,4&wo=1,0;0,1',
    );
    expect(encodeState(example('gqa'))).toMatch(/&pos=0&kvh=2&head=0$/u);
  });

  it('writes the query the page wrote before the table, keeping the other parts’ keys', () => {
    const link = {
      model: 'https://x.org/a b/',
      text: 'the cat, “dog” & é;',
      layer: 1,
      head: 3,
      ablate: [
        [1, 0],
        [0, 2],
      ],
      edits: [
        { layer: 0, step: 'wq', row: 1, col: 34, value: Math.fround(0.1) },
        { layer: 1, step: 'x', row: 14, col: 3, value: -2.5 },
      ],
    };
    const search = writeModelLink('?nowarm&embed&steps=a+b', link);
    expect(search).toBe(
      '?nowarm=&embed=&steps=a+b&model=https%3A%2F%2Fx.org%2Fa+b%2F&text=the+cat%2C+%E2%80%9Cdog%E2%80%9D+%26+%C3%A9%3B&layer=1&head=3&ablate=1.0%2C0.2&edits=0.wq.1.34_0.1*1.x.14.3_-2.5',
    );
    const settings = { maxNewTokens: 6, temperature: 1.2, topK: 20, topP: 0.9, seed: 7 };
    const both = writeGenerateLink(search, settings);
    expect(both).toBe(`${search}&gen=6&gentemp=1.2&gentopk=20&gentopp=0.9&genseed=7`);
    expect(readModelLink(both)).toEqual({
      ...link,
      ablateMode: 'zero',
      ablateReference: '',
      section: null,
      warnings: [],
      generate: settings,
    });
    expect(readGenerateLink(both)).toEqual(settings);
    expect(readQuery(both).values).toMatchObject({ embed: true, steps: 'a b', nowarm: true });
    // each part writes only its own keys
    expect(writeModelLink(both, null)).toBe(
      '?nowarm=&embed=&steps=a+b&gen=6&gentemp=1.2&gentopk=20&gentopp=0.9&genseed=7',
    );
    expect(writeGenerateLink(both, null)).toBe(search);
    expect(writeQuery('', 'model', { model: 'builtin', text: null, ablate: [], edits: [] })).toBe('?model=builtin');
  });

  it('every row of the hash reads back what it writes', () => {
    const base = withSizes({ ...defaultState(), sentence: 'a b c' }, { n: 3, dModel: 4, dK: 2, dV: 2, numHeads: 2 });
    const x = currentMatrix(base, 'x').map((row) => row.map((v) => v + 0.5));
    const changed = {
      ...base,
      sentence: 'a b c',
      seed: 9,
      dist: 'uniform',
      precision: 5,
      causal: true,
      scaling: false,
      temperature: 2.5,
      positions: true,
      shuffle: 3,
      design: true,
      kvHeads: 1,
      source: 'x y',
      ropeTheta: 500000,
      ropeStyle: 'interleaved',
      ropeShift: 12,
      slidingWindow: 2,
      softcap: 2.5,
      head: 1,
      x,
      mask: [
        [true, false, true],
        [true, true, true],
        [true, true, false],
      ],
    };
    const hash = encodeState(changed);
    const hashRows = LINK.filter((e) => !e.group).map((e) => e.key);
    const written = hash.split('&').map((pair) => pair.split('=')[0]);
    // every row but those a state skips (W_k with W_q = W_k; here none) or leaves at its default (typed W's)
    expect(written).toEqual(hashRows.filter((key) => !['wq', 'wk', 'wv', 'wo'].includes(key)));
    expect(decodeState(hash)).toEqual({ state: changed, warnings: [], notes: [] });
  });

  it('every row of the query reads back what it writes', () => {
    const values = {
      model: 'openai-community/gpt2',
      text: 'a b',
      layer: 0,
      head: 11,
      ablate: [[3, 4]],
      ablateMode: 'resample',
      ablateReference: 'a c',
      edits: [{ layer: 2, step: 'wo', row: 0, col: 5, value: 1 }],
      section: 'investigate',
      invTab: 'patching',
      invTarget: ' ball',
      invAgainst: '17',
      invPosition: 3,
      invClean: 'a b',
      invCorrupted: 'a “c” <b>',
      maxNewTokens: 3,
      temperature: 0.7,
      topK: 5,
      topP: 0.5,
      seed: 4,
      lesson: 'patching',
      embed: true,
      steps: 'scores softmax',
      nowarm: true,
    };
    const groups = [...new Set(LINK.filter((e) => e.group).map((e) => e.group))];
    const search = groups.reduce((s, group) => writeQuery(s, group, values), '');
    const keys = new URLSearchParams(search);
    expect([...keys.keys()]).toEqual(LINK.filter((e) => e.group).map((e) => e.key));
    expect(readQuery(search).values).toEqual(values);
    expect(readQuery(search).warnings).toEqual([]);
  });

  it('reads the Investigate part’s tab and inputs beside the model, and names what it cannot read', () => {
    const search = writeQuery(
      writeModelLink('?nowarm', { model: 'builtin', text: 'a b', section: 'investigate' }),
      'investigate',
      { invTab: 'attribution', invTarget: 'ball', invAgainst: null },
    );
    expect(search).toBe('?nowarm=&model=builtin&text=a+b&section=investigate&inv=attribution&invtarget=ball');
    expect(readModelLink(search).investigate).toEqual({ invTab: 'attribution', invTarget: 'ball' });
    expect(readModelLink('?model=builtin').investigate).toBeUndefined();
    // the model's part written again (after the others) keeps Investigate's; Investigate's null removes its own only
    expect(writeModelLink(search, { model: 'builtin', text: 'c' })).toBe(
      '?nowarm=&inv=attribution&invtarget=ball&model=builtin&text=c',
    );
    expect(writeQuery(search, 'investigate', null)).toBe('?nowarm=&model=builtin&text=a+b&section=investigate');
    const bad = readModelLink('?model=builtin&inv=lenz&invpos=-1&invtarget=' + 'x'.repeat(101));
    expect(bad.investigate).toBeUndefined();
    expect(bad.warnings).toEqual([
      'inv=lenz is not an instrument of Investigate (lens, attribution, patching, scores, loss)',
      `invtarget=${'x'.repeat(40)}… is longer than 100 characters`,
      'invpos=-1 is not a token position from 0 to 99999',
    ]);
  });

  it('reads a lesson on the trained model by its id, and warns of one that is none', () => {
    expect(readQuery('?lesson=logit-lens').values).toEqual({ lesson: 'logit-lens' });
    expect(readQuery('?lesson=lens').warnings).toEqual([
      'lesson=lens is not a lesson on the trained model (head-writes, logit-lens, patching)',
    ]);
  });

  it('writes the ablation mode only when heads are switched off and not zeroed, its reference only with it', () => {
    const base = { model: 'builtin', text: 'a b', ablate: [[0, 2]], ablateMode: 'zero', ablateReference: 'c d' };
    expect(writeQuery('', 'model', base)).toBe('?model=builtin&text=a+b&ablate=0.2');
    expect(writeQuery('', 'model', { ...base, ablateMode: 'mean', ablateReference: null })).toBe(
      '?model=builtin&text=a+b&ablate=0.2&ablatemode=mean',
    );
    expect(writeQuery('', 'model', { ...base, ablateMode: 'resample' })).toBe(
      '?model=builtin&text=a+b&ablate=0.2&ablatemode=resample&ablateref=c+d',
    );
    expect(writeQuery('', 'model', { ...base, ablate: [], ablateMode: 'mean' })).toBe('?model=builtin&text=a+b');
    expect(readQuery('?model=builtin&ablatemode=half').warnings).toEqual([
      'ablatemode=half is not an ablation mode (zero, mean, resample)',
    ]);
  });

  it('names what it cannot read in the query, keeping the rest', () => {
    const { values, warnings } = readQuery('?model=files&layer=x&head=2&ablate=1.0,a.b,2&gentemp=99&gen=4&other=1');
    expect(values).toMatchObject({ model: 'files', head: 2, ablate: [[1, 0]], maxNewTokens: 4 });
    expect(values.layer).toBeUndefined();
    expect(warnings).toEqual([
      'layer=x is not a layer from 0 to 9999',
      'ablate=1.0,a.b,2 holds parts that are not layer.head pairs such as 1.0,1.2: they are left out',
      'gentemp=99 is not a temperature from 0 to 10',
    ]);
    expect(generateSettings(values)).toEqual({ ...GENERATE_DEFAULTS, maxNewTokens: 4 });
    const long = readQuery(`?model=builtin&text=${'a'.repeat(2100)}`);
    expect(long.values.text).toHaveLength(2000);
    expect(long.warnings[0]).toMatch(/is longer than 2000 characters: its first 2000 are read/u);
  });
});

describe('an older link’s head, counted from 1', () => {
  it('opens the head it meant and says how it is written now', () => {
    const { state, warnings, notes } = decodeState('#v=2&dm=16&h=4&head=3');
    expect(warnings).toEqual([]);
    expect(state.head).toBe(2);
    expect(notes).toEqual([
      'This link counts heads from 1 (an older version of the page): it opens head 2, now written head=2.',
    ]);
    expect(encodeState(state)).toMatch(/^v=3&.*&head=2$/u);
    expect(decodeState('#v=1&dm=16&h=4&head=1').state.head).toBe(0);
  });

  it('names a head out of range in the count of its version', () => {
    expect(decodeState('#v=2&h=2&head=3').warnings).toEqual([
      'head=3 is not a head from 1 to 2 (this older link counts heads from 1)',
    ]);
    expect(decodeState('#v=3&h=2&head=2').warnings).toEqual(['head=2 is not a head from 0 to 1 (heads count from 0)']);
    expect(decodeState('#v=3&h=2&head=0')).toMatchObject({ warnings: [], notes: [], state: { head: 0 } });
  });
});
