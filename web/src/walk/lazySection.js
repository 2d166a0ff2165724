// Runs a costly section's drawing only while the section is on screen (or near it), and catches up when it
// scrolls into view or the page is printed: the word-order demo and the KV cache make several library calls each.

export class LazySection {
  /**
   * @param {HTMLElement} section
   * @param {(...args: unknown[]) => void} draw  computes and draws the section for its arguments
   */
  constructor(section, draw) {
    this.section = section;
    this.draw = draw;
    this.visible = false;
    this.waiting = null;
    new IntersectionObserver(
      ([entry]) => {
        this.visible = entry.isIntersecting;
        if (this.visible && this.waiting) this.#run(this.waiting);
      },
      { rootMargin: '600px 0px' },
    ).observe(section);
    // A print shows every section: what waits for the screen is drawn before the page is laid out for paper.
    window.addEventListener('beforeprint', () => {
      if (this.waiting) this.#run(this.waiting);
    });
  }

  /**
   * Draws now when visible, else when the section comes into view. `data-drawn` on the section is the render
   * number drawn (the page tests wait for it).
   * @param {number} render  the page's render count for these arguments
   */
  update(render, ...args) {
    this.waiting = { render, args };
    if (this.visible) this.#run(this.waiting);
  }

  #run({ render, args }) {
    this.waiting = null;
    this.draw(...args);
    this.section.dataset.drawn = String(render);
  }
}
