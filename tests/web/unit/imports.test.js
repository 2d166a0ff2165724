// The page's modules do nothing when imported: no observers, no DOM. In Node, where neither exists, importing
// them must not throw (the grid used to start an IntersectionObserver at import).
import { describe, expect, it } from 'vitest';

const MODULES = [
  'walk/matrixGrid.js',
  'walk/renderScheduler.js',
  'walk/heatmap.js',
  'walk/stepsView.js',
  'lessons/designed-heads/designedView.js',
  'lessons/gqa/gqaView.js',
  'lessons/cross-attention/crossView.js',
  'shared/whyScore.js',
  'app/controls.js',
  'lessons/scaling/scalingPanel.js',
];

describe('importing the page’s modules', () => {
  it.each(MODULES)('%s has no side effects', async (path) => {
    expect(globalThis.IntersectionObserver).toBeUndefined();
    expect(globalThis.document).toBeUndefined();
    await expect(import(`../../../web/src/${path}`)).resolves.toBeTypeOf('object');
  });
});
