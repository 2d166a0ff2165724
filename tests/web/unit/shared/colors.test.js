// The one colour table of the grids and heatmaps.
import { describe, expect, it } from 'vitest';
import {
  COLOR_LEVELS,
  cssColor,
  diverging,
  signedColor,
  viridis,
  weightColor,
} from '../../../../web/src/shared/colors.js';

describe('weightColor', () => {
  it('runs from viridis purple at 0 to yellow at 1, with white text only on the dark end', () => {
    expect(weightColor(0)).toEqual({ css: 'rgb(68, 1, 84)', light: true });
    expect(weightColor(1)).toEqual({ css: 'rgb(253, 231, 37)', light: false });
    expect(weightColor(0.5).css).toBe(cssColor(viridis(128 / (COLOR_LEVELS - 1))));
  });

  it('clamps, and counts what is not a number as 0', () => {
    expect(weightColor(-2)).toBe(weightColor(0));
    expect(weightColor(7)).toBe(weightColor(1));
    expect(weightColor(NaN)).toBe(weightColor(0));
  });
});

describe('signedColor', () => {
  it('is near-white at 0, blue at −max and orange at +max', () => {
    // 256 levels have no exact middle: 0 takes level 128, a hair to the orange side.
    expect(signedColor(0, 3).css).toBe('rgb(250, 250, 249)');
    expect(signedColor(0, 0)).toBe(signedColor(0, 3));
    expect(signedColor(-3, 3).css).toBe(cssColor(diverging(-1)));
    expect(signedColor(3, 3).css).toBe(cssColor(diverging(1)));
    expect(signedColor(3, 3).light).toBe(false);
  });
});
