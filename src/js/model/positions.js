// The position ids of a run's tokens (the rows of the learned position table it adds), from spec.positions: token i
// at `first` + i takes offset + first + i; with a padId (RoBERTa's padding_idx, transformers'
// create_position_ids_from_input_ids), the tokens that are not padId count from offset + first and padId's own
// tokens take offset − 1, the table's padding row.

/**
 * @param {{ offset: number, padId: number | null }} positions  spec.positions
 * @param {number[]} ids
 * @param {number} [first]  the tokens before these (a decode step's cache)
 * @returns {number[]}
 */
export function positionIds({ offset, padId }, ids, first = 0) {
  let count = offset + first;
  return ids.map((id) => (id === padId ? offset - 1 : count++));
}
