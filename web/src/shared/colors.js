// The page's colours: viridis for weights (0 to 1), a light blue–orange diverging scale for signed values, and
// the one precomputed table of both that grids and heatmaps read. Both stay readable with colour-vision deficiencies.

const VIRIDIS = [
  [68, 1, 84],
  [72, 36, 117],
  [65, 68, 135],
  [53, 95, 141],
  [42, 120, 142],
  [33, 145, 140],
  [34, 168, 132],
  [68, 191, 112],
  [122, 209, 81],
  [189, 223, 38],
  [253, 231, 37],
];

const lerp = (a, b, t) => a + (b - a) * t;

/**
 * Viridis at t in [0, 1] (clamped).
 * @returns {[number, number, number]} red, green, blue in 0–255
 */
export function viridis(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  return VIRIDIS[i].map((c, k) => Math.round(lerp(c, VIRIDIS[i + 1][k], f)));
}

const NEGATIVE = [67, 147, 195];
const POSITIVE = [230, 145, 56];
const MIDDLE = [250, 250, 250];

/**
 * A light diverging colour for t in [−1, 1]: blue below 0, orange above, near-white at 0. Light enough
 * for dark text at any t.
 * @returns {[number, number, number]}
 */
export function diverging(t) {
  const x = Math.min(1, Math.max(-1, Number.isFinite(t) ? t : 0)) * 0.7;
  const end = x < 0 ? NEGATIVE : POSITIVE;
  return MIDDLE.map((c, k) => Math.round(lerp(c, end[k], Math.abs(x))));
}

/** Relative luminance (WCAG) of an sRGB colour. */
export function luminance([r, g, b]) {
  const channel = (c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** True when white text reads better than black on this background. */
export function prefersLightText(rgb) {
  return luminance(rgb) < 0.18;
}

/** A colour as a CSS string. */
export function cssColor([r, g, b]) {
  return `rgb(${r}, ${g}, ${b})`;
}

/** How many precomputed colours each scale has. */
export const COLOR_LEVELS = 256;

const table = (scale) =>
  Array.from({ length: COLOR_LEVELS }, (_, k) => {
    const rgb = scale(k / (COLOR_LEVELS - 1));
    return { css: cssColor(rgb), light: prefersLightText(rgb) };
  });

// The one colour table of the page: the grids and the heatmaps both read it, so a weight looks the same in both.
const VIRIDIS_TABLE = table(viridis);
const DIVERGING_TABLE = table((t) => diverging(2 * t - 1));

/**
 * The precomputed colour of a weight in [0, 1] (clamped; not a number counts as 0).
 * @returns {{ css: string, light: boolean }}  light: white text reads better on it
 */
export function weightColor(value) {
  return VIRIDIS_TABLE[Math.round(Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0)) * (COLOR_LEVELS - 1))];
}

/**
 * The precomputed colour of a signed value relative to the largest magnitude shown (0 when maxAbs is 0).
 * @returns {{ css: string, light: boolean }}
 */
export function signedColor(value, maxAbs) {
  return DIVERGING_TABLE[Math.round((((maxAbs > 0 ? value / maxAbs : 0) + 1) / 2) * (COLOR_LEVELS - 1))];
}

/**
 * Colours that tell groups apart (the grouped-query lesson's kv heads): Okabe and Ito's palette, distinct with
 * colour-vision deficiencies. Group g uses GROUP_COLORS[g mod 8].
 */
export const GROUP_COLORS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#000000'];
