// The small worked example shared by the API tests: x = I (two tokens, d_model = 2), W_q = W_k = I,
// W_v = [[1, 2], [3, 4]], whose output every test of a recovered instance checks again; and three small
// matrices whose shapes do not fit each other, for the bad-call tables.
export const I2 = [
  [1, 0],
  [0, 1],
];
export const q3 = [
  [1, 2, 3],
  [4, 5, 6],
];
export const k3 = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];
export const v2 = [
  [1, 2],
  [3, 4],
  [5, 6],
];
/** selfAttention(I2, weights) gives goldenOutput (float32, row-major). */
export const weights = {
  wq: I2,
  wk: I2,
  wv: [
    [1, 2],
    [3, 4],
  ],
};
export const goldenOutput = [1.6604769, 2.6604769, 2.3395231, 3.3395231];
