// The loss per token (TransformerLens's lm_cross_entropy_loss, per_token): run's `loss` shaped as one row per
// prediction: the token read, the next one, its cross-entropy and probability. Pure: no DOM.

/**
 * @param {string[]} tokens  the sentence's tokens as shown
 * @param {ArrayLike<number>} perToken  [n − 1]: position i's −log p(token i + 1)
 * @returns {{ position: number, token: string, next: string, loss: number, p: number }[]}
 */
export function lossRows(tokens, perToken) {
  return Array.from(perToken, (loss, i) => ({
    position: i,
    token: tokens[i],
    next: tokens[i + 1],
    loss,
    p: Math.exp(-loss),
  }));
}

/** The rows as a table to copy. */
export function lossTable(rows, mean) {
  return {
    title: `next-token cross-entropy per position (mean ${Number.isFinite(mean) ? mean.toFixed(4) : 'none'})`,
    labelName: 'prediction',
    columns: ['position', 'loss', 'p'],
    rows: rows.map((r) => ({ label: `${r.token} → ${r.next}`, values: [r.position, r.loss, r.p] })),
  };
}

/** The largest loss for the colour scale: at least ln 2, so that small losses stay pale. */
export const lossScale = (rows) => Math.max(Math.LN2, ...rows.map((r) => r.loss));
