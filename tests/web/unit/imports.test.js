// The page's modules do nothing when imported: no observers, no DOM. In Node, where neither exists, importing
// them must not throw (the grid used to start an IntersectionObserver at import).
import { describe, expect, it } from 'vitest';

const MODULES = [
  'view/matrixGrid.js',
  'view/renderScheduler.js',
  'view/heatmap.js',
  'view/steps.js',
  'view/designedView.js',
  'view/gqaView.js',
  'view/crossView.js',
  'model/whyScore.js',
  'controls.js',
  'scalingPanel.js',
];

describe('importing the page’s modules', () => {
  it.each(MODULES)('%s has no side effects', async (path) => {
    expect(globalThis.IntersectionObserver).toBeUndefined();
    expect(globalThis.document).toBeUndefined();
    await expect(import(`../../../web/src/${path}`)).resolves.toBeTypeOf('object');
  });
});
