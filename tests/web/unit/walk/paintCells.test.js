// The heatmaps' pixels (walk/canvasMatrix.js paintCells): one per cell, the colour of its level on colors.js's scales
// (viridis for weights on [0, 1], the diverging scale against the largest magnitude), grey where a value is not
// finite or the cell is blocked, and the runs of grey cells for the hatching. Checked pixel by pixel against the
// scales themselves, in Node with a stand-in for the canvas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { colorLevel, paintCells } from '../../../../web/src/walk/canvasMatrix.js';
import { diverging, viridis } from '../../../../web/src/shared/colors.js';

class FakeImageData {
  constructor(width, height) {
    Object.assign(this, { width, height, data: new Uint8ClampedArray(width * height * 4) });
  }
}

/** A canvas stand-in that keeps what putImageData drew. */
const fakeCanvas = () => {
  const canvas = { width: 0, height: 0, drawn: null };
  canvas.getContext = () => ({ putImageData: (image) => (canvas.drawn = image) });
  return canvas;
};

const GREY = [217, 217, 217, 255];
const expected = (mode, value, maxAbs) => {
  const level = colorLevel(mode, value, maxAbs) / 255;
  return [...(mode === 'weights' ? viridis(level) : diverging(2 * level - 1)), 255];
};

describe('paintCells', () => {
  beforeAll(() => {
    globalThis.ImageData = FakeImageData;
  });
  afterAll(() => {
    delete globalThis.ImageData;
  });

  for (const mode of ['weights', 'signed']) {
    it(`${mode}: each pixel is its cell's colour, grey where not finite or blocked`, () => {
      const [rows, cols] = [5, 7];
      const data = Float32Array.from(
        { length: rows * cols },
        (_, k) => Math.sin(k * 1.7) * (mode === 'weights' ? 1.2 : 3),
      );
      data[3] = NaN;
      data[4] = Infinity;
      data[12] = -Infinity;
      data[20] = mode === 'weights' ? 1 : -3;
      const maxAbs = 3;
      const blocked = (i, j) => j > i + 3; // rows 0 to 2 end in blocked cells
      const canvas = fakeCanvas();
      const runs = paintCells(canvas, { data, rows, cols, maxAbs, blocked }, mode);
      expect([canvas.width, canvas.height]).toEqual([cols, rows]);
      const px = canvas.drawn.data;
      const wantRuns = [];
      for (let i = 0; i < rows; i++) {
        let start = -1;
        for (let j = 0; j < cols; j++) {
          const v = data[i * cols + j];
          const grey = !Number.isFinite(v) || blocked(i, j);
          const got = [...px.slice((i * cols + j) * 4, (i * cols + j) * 4 + 4)];
          expect(got, `cell (${i}, ${j}) = ${v}`).toEqual(grey ? GREY : expected(mode, v, maxAbs));
          if (grey && start < 0) start = j;
          if (!grey && start >= 0) wantRuns.push([i, start, j]);
          if (!grey) start = -1;
        }
        if (start >= 0) wantRuns.push([i, start, cols]);
      }
      expect(runs).toEqual(wantRuns);
      expect(runs.length).toBe(3); // rows 0 to 2 (row 0 from its NaN on)
    });
  }
});
