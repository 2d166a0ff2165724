// A rotary (RoPE) model's head in the real-model section: its q and k before and after the rotation by position,
// from the model's own capture, as the page's number grids (step 2 shows q and k before it; steps 3 to 6 the scores
// of the rotated ones).
import { headName } from '../../../shared/counting.js';
import { el, show } from '../../../shared/dom.js';
import { MatrixGrid } from '../../../walk/matrixGrid.js';

const dims = (count) => Array.from({ length: count }, (_, i) => String(i));

export class RopeGrids {
  constructor() {
    this.grids = {
      q: new MatrixGrid({ name: 'ropeQ', title: 'q', note: 'before RoPE', color: 'signed' }),
      qRotated: new MatrixGrid({ name: 'qRotated', title: 'q rotated', note: 'by its position', color: 'signed' }),
      k: new MatrixGrid({ name: 'ropeK', title: 'k', note: 'before RoPE', color: 'signed' }),
      kRotated: new MatrixGrid({ name: 'kRotated', title: 'k rotated', note: 'by its position', color: 'signed' }),
    };
    this.text = el('p', { class: 'hint' });
    this.element = el(
      'div',
      { class: 'model-rope', hidden: true },
      el('h3', { text: 'RoPE: q and k rotated by position' }),
      this.text,
      el(
        'div',
        { class: 'rope-grids' },
        Object.values(this.grids).map((g) => g.element),
      ),
    );
  }

  /**
   * Shows head `head`'s q and k before and after the rotation, or hides the grids (no RoPE, no head).
   * @param {{ q, qRotated, k, kRotated }} capture  [n, d_k] each, or null
   */
  draw(capture, { layer, head, labels, precision = 3 } = {}) {
    show(this.element, Boolean(capture?.qRotated));
    if (!capture?.qRotated) return;
    this.text.textContent = `${headName(layer, head)}: each pair of q’s and k’s numbers is turned by an angle of position × frequency before QKᵀ, so a score depends on how far apart two tokens are. The scores in steps 3 to 6 are those of the rotated q and k.`;
    for (const [key, grid] of Object.entries(this.grids)) {
      const { data, shape } = capture[key];
      grid.update({ data, rows: shape[0], cols: shape[1], rowLabels: labels, colLabels: dims(shape[1]), precision });
    }
  }
}
