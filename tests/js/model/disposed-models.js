// Models that end with their test: a browser page holds only so many WebAssembly memories (and workers) at once.
import { afterEach } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { source } from './fixtures.js';

/**
 * Registers an afterEach that disposes of every model the returned load(fixture, options) gave during the test
 * (the fixture's files as bytes).
 */
export function disposedAfterEach() {
  const models = [];
  afterEach(() => Promise.all(models.splice(0).map((m) => m.dispose())));
  return async (fixture, options) => {
    const model = await loadModel(source(fixture, 'bytes'), options);
    models.push(model);
    return model;
  };
}
