// The messages of a source that cannot be read say what to do: a Hub model that is not there (404) or not given
// (401) says "not found, or gated/private"; HTML where JSON was expected names the URL; a relative path string (the
// browser entry: this file never imports the Node entry) suggests new URL(s, document.baseURI), never { hub }; a
// misspelt { hub } says so; an empty string says it is empty. And a caller's own code that throws while a source is
// read (a getter, a Proxy) is an AttentionError; attentionWeightsFrom checks its tensors' data against their shapes.
import { describe, expect, it } from 'vitest';
import { readSafetensors } from '../../../src/js/io/index.js';
import { attentionTensorsOf, attentionWeightsFrom, loadModel } from '../../../src/js/model/index.js';
import { asFiles, gpt2Fixture } from './fixtures.js';
import { server, upload } from './web-helpers.js';

/** The error `run()` throws (or rejects with), or undefined. */
async function failure(run) {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('a Hub model that is not there, or not given', () => {
  it('404: MISSING_FILE saying "not found, or gated/private: check \'owner/name\'"', async () => {
    const error = await failure(() => loadModel({ hub: 'acme/none', base: `${server}range` }));
    expect(error?.code).toBe('MISSING_FILE');
    expect(error.message).toContain(`${server}range/acme/none/resolve/main/config.json`);
    expect(error.message).toContain("not found, or gated/private: check 'acme/none'");
    const pinned = await failure(() => loadModel({ hub: 'acme/none', revision: 'v2', base: `${server}range` }));
    expect(pinned.message).toContain("check 'acme/none' and its revision 'v2'");
  });

  it('401 (the Hub’s answer to a gated, private or unknown model without a token): the same words', async () => {
    const error = await failure(() => loadModel({ hub: 'acme/secret', base: `${server}gated` }));
    expect(error?.code).toBe('FETCH_FAILED');
    expect(error.message).toContain('HTTP 401');
    expect(error.message).toContain("not found, or gated/private: check 'acme/secret'");
  });
});

describe('HTML where JSON was expected', () => {
  it('names the URL and says it is an HTML page', async () => {
    const error = await failure(() => loadModel(`${server}html/app/models/tiny/`));
    expect(error?.code).toBe('BAD_CONFIG');
    expect(error.message).toContain(`${server}html/app/models/tiny/config.json`);
    expect(error.message).toMatch(/an HTML page/);
  });

  it('a tokenizer.json that is HTML likewise', async () => {
    const fixture = gpt2Fixture();
    const path = await upload({ ...fixture.files, 'tokenizer.json': '<!doctype html><p>Not here</p>' });
    const error = await failure(() => loadModel(`${server}range/${path}`));
    expect(error?.code).toBe('BAD_FILE');
    expect(error.message).toContain(`${server}range/${path}tokenizer.json`);
    expect(error.message).toMatch(/an HTML page/);
  });
});

describe('a string that is not a folder URL (the browser entry)', () => {
  it('a relative path suggests new URL(path, document.baseURI), never { hub: path }', async () => {
    for (const text of ['models/tiny', './models/tiny/', '/models/tiny', '../models/tiny', 'tiny']) {
      const error = await failure(() => loadModel(text));
      expect(error?.code, text).toBe('BAD_OPTION');
      expect(error.message, text).toContain(`new URL(${JSON.stringify(text)}, document.baseURI)`);
      expect(error.message, text).not.toContain(`hub: ${JSON.stringify(text)}`);
      expect(error.message, text).not.toContain(`hub: '${text}'`);
    }
  });

  it('a host without a scheme (//host/m) says to write its URL in full, not new URL(…)', async () => {
    const error = await failure(() => loadModel('//models.example.org/tiny/'));
    expect(error?.code).toBe('BAD_OPTION');
    expect(error.message).toContain('https://models.example.org/tiny/');
    expect(error.message).not.toContain('new URL(');
  });

  it('an empty string says that it is empty', async () => {
    for (const text of ['', '   ']) {
      const error = await failure(() => loadModel(text));
      expect(error?.code).toBe('BAD_OPTION');
      expect(error.message).toMatch(/empty/);
    }
  });

  it('{ hb } (or another misspelt key, with no file name among the keys) suggests hub', async () => {
    for (const source of [{ hb: 'acme/tiny' }, { Hub: 'acme/tiny' }, { hubb: 'acme/tiny', revison: 'main' }]) {
      const error = await failure(() => loadModel(source));
      expect(error?.name).toBe('AttentionError');
      expect(error.message).toMatch(/did you mean 'hub'\?/);
      expect(error.message).toMatch(/config\.json/); // what a source of files in memory looks like
    }
  });
});

describe('code of the caller’s own that throws while a source is read', () => {
  const trap = () => {
    throw new Error('a trap of the caller’s');
  };

  it('a Proxy or a getter anywhere in a source is an AttentionError', async () => {
    const fixture = gpt2Fixture();
    const files = asFiles(fixture.files);
    const withGetter = [...files];
    Object.defineProperty(withGetter, 1, { get: trap, enumerable: true });
    const sources = [
      new Proxy({}, { getPrototypeOf: trap }),
      new Proxy({}, { ownKeys: trap }),
      new Proxy({ 'config.json': '{}' }, { get: trap }),
      {
        ...fixture.files,
        get 'config.json'() {
          return trap();
        },
      },
      {
        hub: 'acme/tiny',
        get revision() {
          return trap();
        },
      },
      new Proxy({ hub: 'acme/tiny' }, { has: trap }),
      withGetter,
      new Proxy(files, { get: trap }),
      new Proxy(new Map(Object.entries(fixture.files)), {}),
    ];
    for (const [i, source] of sources.entries()) {
      const error = await failure(() => loadModel(source));
      expect(error?.name, `source ${i}: ${error}`).toBe('AttentionError');
    }
    const cache = {
      get get() {
        return trap();
      },
      set: async () => {},
    };
    expect((await failure(() => loadModel(fixture.files, { cache })))?.name).toBe('AttentionError');
  });

  it('in attentionWeightsFrom’s and attentionTensorsOf’s arguments too', () => {
    const fixture = gpt2Fixture();
    const tensors = readSafetensors(fixture.files['model.safetensors']);
    const calls = [
      () => attentionWeightsFrom(new Proxy(tensors, { ownKeys: trap }), { layer: 0, config: fixture.config }),
      () =>
        attentionWeightsFrom(tensors, {
          get layer() {
            return trap();
          },
          config: fixture.config,
        }),
      () => {
        const shaped = {
          ...tensors,
          'h.0.attn.c_attn.weight': {
            get data() {
              return trap();
            },
            shape: tensors['h.0.attn.c_attn.weight'].shape,
          },
        };
        return attentionWeightsFrom(shaped, { layer: 0, config: fixture.config });
      },
      () => attentionTensorsOf(new Proxy([], { get: trap })),
      () =>
        attentionTensorsOf(Object.keys(tensors), {
          get layer() {
            return trap();
          },
        }),
    ];
    for (const [i, call] of calls.entries()) {
      let error;
      try {
        call();
      } catch (thrown) {
        error = thrown;
      }
      expect(error?.name, `call ${i}: ${error}`).toBe('AttentionError');
    }
  });
});

describe('attentionWeightsFrom: data against shape', () => {
  const fixture = gpt2Fixture();
  const tensors = readSafetensors(fixture.files['model.safetensors']);
  const name = 'h.0.attn.c_attn.weight';
  const { data, shape } = tensors[name];
  const withData = (values) => ({ ...tensors, [name]: { data: values, shape } });
  const options = { layer: 0, config: fixture.config };
  const error = (given) => {
    try {
      attentionWeightsFrom(given, options);
    } catch (thrown) {
      return thrown;
    }
    return undefined;
  };

  it('data shorter or longer than its shape is DATA_LENGTH_MISMATCH naming the tensor and both counts', () => {
    for (const values of [data.subarray(1), Float32Array.from([...data, 0]), Array.from(data).slice(3)]) {
      const e = error(withData(values));
      expect(e?.code).toBe('DATA_LENGTH_MISMATCH');
      expect(e.message).toContain(name);
      expect(e.message).toContain(String(values.length));
      expect(e.message).toContain(String(data.length));
    }
  });

  it('data that is not numbers is NOT_A_TENSOR naming the tensor', () => {
    const strings = Array.from(data, String);
    const holes = Array.from(data);
    delete holes[5];
    const nested = [Array.from(data.subarray(0, shape[1]))];
    for (const values of [strings, holes, nested, new Int32Array(data.length), 'abc', null]) {
      const e = error(withData(values));
      expect(e?.code, String(values).slice(0, 20)).toBe('NOT_A_TENSOR');
      expect(e.message).toContain(name);
    }
  });

  it('attentionTensorsOf(names, null) is BAD_OPTION, as is a layer that is not an integer', () => {
    const names = Object.keys(tensors);
    for (const options of [null, 5, { layer: 'x' }, { layer: -1 }]) {
      let e;
      try {
        attentionTensorsOf(names, options);
      } catch (thrown) {
        e = thrown;
      }
      expect(e?.code, JSON.stringify(options)).toBe('BAD_OPTION');
    }
    expect(attentionTensorsOf(names, undefined).layer).toBe(0);
    expect(attentionTensorsOf(names, { layer: 1 }).layer).toBe(1);
  });
});
