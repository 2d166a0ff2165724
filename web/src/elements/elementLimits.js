// What an element accepts: the page's limits, but sizes kept to the page's former caps, because an element draws
// its matrices as number tables and CSS grids (the page switches large ones to canvas heatmaps).
import { LIMITS } from '../shared/state.js';

export const ELEMENT_LIMITS = Object.freeze({
  ...LIMITS,
  n: 64,
  dModel: 64,
  dK: 64,
  dV: 64,
  numHeads: 8,
  headsWidth: 64,
});
