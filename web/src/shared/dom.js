// Building elements without HTML strings: text always goes in as text, never as markup.

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(node, props) {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.setAttribute('class', value);
    else if (key === 'text') node.textContent = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'on') for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (key === 'attrs')
      for (const [name, v] of Object.entries(value)) {
        if (v !== undefined && v !== null && v !== false) node.setAttribute(name, String(v));
      }
    else node[key] = value;
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
}

/**
 * Creates an HTML element. `props`: class, text, dataset, on (listeners), attrs (attributes), or any
 * element property. Children are nodes or strings (added as text).
 * @returns {HTMLElement}
 */
export function el(tag, props, ...children) {
  const node = document.createElement(tag);
  apply(node, props);
  append(node, children);
  return node;
}

/** Creates an SVG element with attributes. */
export function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  append(node, children);
  return node;
}

/** Finds an element by id, failing loudly when the page's HTML lacks it. */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from the page`);
  return node;
}

/** Shows or hides an element (the `hidden` attribute). */
export function show(node, visible) {
  node.hidden = !visible;
}

/** Shows a message in a node, or empties and hides the node when there is none. */
export function setError(node, message) {
  node.textContent = message ?? '';
  show(node, Boolean(message));
}

/**
 * The 2D context options of the page's drawn canvases (heatmaps, the model view): drawn by the CPU, not the GPU. An
 * accelerated canvas is a composited layer of its own, and the walk of a real model's head shows dozens of them: the
 * compositor's layering of every frame then took longer than the drawing itself.
 */
export const CPU_CANVAS = Object.freeze({ willReadFrequently: true });
