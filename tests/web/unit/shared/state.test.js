import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../../../web/src/shared/examples.js';
import { currentMatrix, generatedMatrix } from '../../../../web/src/shared/matrices.js';
import { createRng } from '../../../../web/src/shared/rng.js';
import { decodeState, encodeState } from '../../../../web/src/shared/link.js';
import { LIMITS, checkSizes, defaultState, withSizes } from '../../../../web/src/shared/state.js';

const roundTrip = (state) => decodeState(`#${encodeState(state)}`);

describe('state ↔ URL hash', () => {
  it('an empty hash gives the default example without warnings', () => {
    expect(decodeState('')).toEqual({ state: defaultState(), warnings: [], notes: [] });
    expect(decodeState('#')).toEqual({ state: defaultState(), warnings: [], notes: [] });
  });

  it('round-trips the default state', () => {
    expect(roundTrip(defaultState())).toEqual({ state: defaultState(), warnings: [], notes: [] });
  });

  it.each(EXAMPLES.map((e) => [e.id, e]))('round-trips the %s example', (id, example) => {
    const state = example.state();
    const { state: back, warnings } = roundTrip(state);
    expect(warnings).toEqual([]);
    expect(back).toEqual({ ...state, wk: state.shareQK ? null : state.wk });
  });

  it('round-trips every setting, typed numbers and a clicked mask', () => {
    const base = withSizes(defaultState(), { n: 3, dModel: 4, dK: 2, dV: 3, numHeads: 2 });
    const x = currentMatrix(base, 'x').map((row) => row.map((v) => v * 1.5));
    x[0][0] = 0.1;
    x[2][3] = -1e-7;
    const wv = currentMatrix(base, 'wv').map((row) => row.slice());
    wv[1][5] = 123456.789;
    const state = {
      ...base,
      sentence: 'a  b\tc & d # e + f = g ; h , i % j é 🙂',
      seed: 4294967295,
      dist: 'uniform',
      precision: 7,
      causal: true,
      scaling: false,
      temperature: 0.35,
      shareQK: false,
      head: 1,
      x,
      wv,
      mask: [
        [true, false, true],
        [true, true, true],
        [false, false, true],
      ],
    };
    expect(roundTrip(state)).toEqual({ state, warnings: [], notes: [] });
  });

  it('writes an edit of a large matrix as the cells that differ from the seed, and reads it back', () => {
    const words = Array.from({ length: 64 }, (_, i) => `w${i}`).join(' ');
    const gpt2 = withSizes(
      { ...defaultState(), sentence: words },
      { n: 64, dModel: 768, dK: 64, dV: 64, numHeads: 12 },
    );
    const x = currentMatrix(gpt2, 'x').map((row) => row.slice());
    x[0][0] = 0.5;
    x[63][767] = -1.25e-3;
    const state = { ...gpt2, x };
    const hash = encodeState(state);
    expect(hash).toContain('&x=*0,0,0.5;63,767,-0.00125');
    expect(hash.length).toBeLessThan(1000); // every number of X: about 900 000 characters, over LIMITS.hashChars
    expect(roundTrip(state)).toEqual({ state, warnings: [], notes: [] });
    expect(decodeState(hash.replace(/&x=[^&]*/u, '&x=*')).state.x).toEqual(generatedMatrix(gpt2, 'x'));
  });

  it('writes every number when a quarter of them or more differ from the seed', () => {
    const base = withSizes(defaultState(), { n: 2, dModel: 2, dK: 2, dV: 2, numHeads: 1 });
    const x = currentMatrix(base, 'x').map((row) => row.slice());
    x[0][0] = 1;
    expect(encodeState({ ...base, x })).toContain(`&x=1,${x[0][1]};${x[1].join(',')}`);
  });

  it('keeps a malicious token as plain text', () => {
    const sentence = '<img src=x onerror=alert(1)> "quoted" \'single\' </script><script>alert(2)</script>';
    const { state, warnings } = roundTrip({ ...defaultState(), sentence });
    expect(warnings).toEqual([]);
    expect(state.sentence).toBe(sentence);
  });

  it('writes no generated numbers: the seed is enough', () => {
    const hash = encodeState(defaultState());
    expect(hash).not.toMatch(/(^|&)(x|wq|wk|wv|mask)=/);
    expect(hash).toMatch(/^v=3&s=time\+flies\+like\+an\+arrow&/);
  });

  it('reads a hand-written link with only some settings', () => {
    const { state, warnings } = decodeState('#s=the+cat+sat&causal=1');
    expect(warnings).toEqual([]);
    expect(state).toMatchObject({ sentence: 'the cat sat', n: 3, causal: true, dModel: 8 });
  });

  it('keeps n from the link over the token count', () => {
    expect(decodeState('#s=a+b&n=4').state.n).toBe(4);
  });
});

describe('garbled and malicious hashes', () => {
  it.each([
    ['n=0', 'n'],
    ['n=257', 'n'],
    ['n=abc', 'n'],
    ['n=1e1', 'n'],
    ['n=-3', 'n'],
    ['dm=999999999999', 'dm'],
    ['seed=4294967296', 'seed'],
    ['seed=1.5', 'seed'],
    ['dist=cauchy', 'dist'],
    ['p=8', 'p'],
    ['causal=yes', 'causal'],
    ['scale=2', 'scale'],
    ['t=0', 't'],
    ['t=Infinity', 't'],
    ['t=NaN', 't'],
    ['head=2', 'head'],
    ['x=1,2;3', 'x'],
    ['x=*0,0', 'x'],
    ['x=*0,0,1,2', 'x'],
    ['x=*5,0,1', 'x'],
    ['x=*0,8,1', 'x'],
    ['x=*-1,0,1', 'x'],
    ['x=*01,0,1', 'x'],
    ['x=*a,0,1', 'x'],
    ['x=*0,0,1e9', 'x'],
    ['x=*0,0,abc', 'x'],
    ['x=*0,0,1;', 'x'],
    ['wq=%3Cb%3E', 'wq'],
    ['mask=10;01', 'mask'],
    ['v=4', 'v'],
  ])('%s is named in a warning and left at its default', (hash, key) => {
    const { state, warnings } = decodeState(`#${hash}`);
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toContain(key);
    if (key !== 'v') expect(state).toEqual(defaultState());
  });

  it('falls back to default sizes when heads × d_k is over the limit', () => {
    const { state, warnings } = decodeState('#h=16&dk=128');
    expect(warnings.join()).toMatch(/heads × d_k is 2048/);
    expect(checkSizes(state)).toEqual({});
  });

  it('ignores unknown keys, including prototype tricks', () => {
    const { state, warnings } = decodeState('#__proto__=1&constructor=2&toString=3&n=3');
    expect(warnings).toHaveLength(3);
    expect(state.n).toBe(3);
    expect(Object.getPrototypeOf(state)).toBe(Object.prototype);
    expect({}.polluted).toBeUndefined();
  });

  it('survives broken percent escapes and odd separators', () => {
    for (const hash of ['%', '%E0%A4%A', '&&&==&=', 's=%ZZ', '?n=3', '#n=3', 'n=3&n=4', 's=' + '%00'.repeat(10)]) {
      const { state } = decodeState(hash);
      expect(Object.keys(checkSizes(state))).toEqual([]);
    }
  });

  it('refuses a hash that is too long, before parsing it', () => {
    const { state, warnings } = decodeState(`#x=${'1,'.repeat(LIMITS.hashChars)}`);
    expect(state).toEqual(defaultState());
    expect(warnings[0]).toMatch(/longer than/);
  });

  it('a matrix with a non-number, Infinity or a huge value is dropped', () => {
    for (const bad of ['1,2,3,4,5,6,7,abc', '1,2,3,4,5,6,7,Infinity', '1,2,3,4,5,6,7,1e300']) {
      const rows = Array.from({ length: 5 }, () => bad).join(';');
      const { state, warnings } = decodeState(`#x=${rows}`);
      expect(state.x).toBeNull();
      expect(warnings).toHaveLength(1);
    }
  });

  it("reads numbers only up to the cell editor's limit of 1e6, so the issue's link falls back to the seed", () => {
    const { state, warnings } = decodeState('#v=1&s=a+b&n=2&dm=2&dk=2&dv=2&x=1e30,1;2,3');
    expect(state.x).toBeNull();
    expect(warnings.join(' ')).toMatch(/x=1e30,1;2,3 is not a 2×2 matrix of numbers from -1000000 to 1000000/);
    expect(decodeState('#s=a+b&n=2&dm=2&dk=2&dv=2&x=1e6,-1e6;2,3').state.x).toEqual([
      [1e6, -1e6],
      [2, 3],
    ]);
    expect(decodeState('#s=a+b&n=2&dm=2&dk=2&dv=2&x=1000001,1;2,3').state.x).toBeNull();
  });

  it('never throws and always gives sizes within the limits (random hashes)', () => {
    const rng = createRng(7);
    const alphabet = 'abcdehnpstvxmqkw=&;,.%+-#0123456789<>"\'()[]{}\\ \u00e9\u{1F642}';
    const chars = Array.from(alphabet);
    for (let trial = 0; trial < 2000; trial++) {
      const length = Math.floor(rng.uniform() * 80);
      let hash = '';
      for (let i = 0; i < length; i++) hash += chars[Math.floor(rng.uniform() * chars.length)];
      const { state, warnings } = decodeState(hash);
      expect(Object.keys(checkSizes(state))).toEqual([]);
      expect(Array.isArray(warnings)).toBe(true);
      expect(state.head).toBeLessThan(state.numHeads);
      expect(typeof state.sentence).toBe('string');
    }
  });

  it('shortens long values in warnings', () => {
    const { warnings } = decodeState(`#dist=${'z'.repeat(300)}`);
    expect(warnings[0].length).toBeLessThan(120);
  });
});

describe('sizes', () => {
  it('checks each size and the heads limit', () => {
    expect(checkSizes({ n: 5, dModel: 8, dK: 4, dV: 4, numHeads: 1 })).toEqual({});
    expect(checkSizes({ n: 257, dModel: 0, dK: 4.5, dV: NaN, numHeads: 17 })).toEqual({
      n: 'n must be a whole number from 1 to 256',
      dModel: 'd_model must be a whole number from 1 to 1024',
      dK: 'd_k must be a whole number from 1 to 128',
      dV: 'd_v must be a whole number from 1 to 128',
      numHeads: 'heads must be a whole number from 1 to 16',
    });
    expect(checkSizes({ n: 256, dModel: 1024, dK: 128, dV: 64, numHeads: 8 })).toEqual({});
    expect(checkSizes({ n: 5, dModel: 8, dK: 128, dV: 8, numHeads: 9 })).toEqual({
      dK: expect.stringContaining('1152'),
    });
  });

  it('withSizes keeps typed numbers that still fit and draws the rest from the seed', () => {
    const state = {
      ...defaultState(),
      x: [[9, 9, 9, 9, 9, 9, 9, 9], ...generatedMatrix(defaultState(), 'x').slice(1)],
    };
    const bigger = withSizes(state, { n: 6, dModel: 10, dK: 4, dV: 4, numHeads: 1 });
    expect(bigger.x).toHaveLength(6);
    expect(bigger.x[0].slice(0, 8)).toEqual(Array(8).fill(9));
    expect(bigger.x[5]).toEqual(generatedMatrix(bigger, 'x')[5]);
    const smaller = withSizes(bigger, { n: 2, dModel: 3, dK: 4, dV: 4, numHeads: 1 });
    expect(smaller.x).toEqual([[9, 9, 9], generatedMatrix(smaller, 'x')[1]]);
  });

  it('withSizes moves weight columns with their head', () => {
    const state = withSizes(defaultState(), { n: 5, dModel: 8, dK: 2, dV: 4, numHeads: 2 });
    const wq = currentMatrix(state, 'wq').map((row) => row.slice());
    wq[0][2] = 7; // head 2, column 0
    const wider = withSizes({ ...state, wq }, { n: 5, dModel: 8, dK: 3, dV: 4, numHeads: 2 });
    expect(wider.wq[0][3]).toBe(7);
  });

  it('withSizes resizes the mask and clamps the head', () => {
    const state = { ...withSizes(defaultState(), { n: 5, dModel: 8, dK: 4, dV: 4, numHeads: 4 }), head: 3 };
    const mask = Array.from({ length: 5 }, () => Array(5).fill(true));
    mask[0][1] = false;
    const next = withSizes({ ...state, mask }, { n: 3, dModel: 8, dK: 4, dV: 4, numHeads: 2 });
    expect(next.head).toBe(1);
    expect(next.mask).toEqual([
      [true, false, true],
      [true, true, true],
      [true, true, true],
    ]);
    expect(withSizes({ ...state, mask }, { n: 1, dModel: 8, dK: 4, dV: 4, numHeads: 2 }).mask).toBeNull();
  });
});
