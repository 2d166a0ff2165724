// A figure's shapes ({ width, height, shapes }, laid out by figure.js for a heatmap and by
// instruments/instrumentPicture.js for an instrument) as the text of an SVG file (a pure function: every text and
// attribute escaped, so no label becomes markup) or drawn on a canvas for a PNG, and saved as a file. Loaded only
// when a picture is asked for.
import { el } from '../shared/dom.js';

export const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const INK = '#1b1f24';
export const MUTED = '#57606a';
export const PAD = 16;
const MARK = '#ff2d95';
const HATCH = 'aw-hatch';

/** A CSS font of `size` px. */
export const font = (size, weight = 400) => `${weight} ${size}px ${FONT}`;

let measurer = null;
/** The width of `text` in `font` (a canvas measures it: the same fonts as the PNG). */
export function measure(text, how) {
  measurer ??= document.createElement('canvas').getContext('2d');
  measurer.font = how;
  return measurer.measureText(text).width;
}

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
/** Text safe inside an XML element or a quoted attribute. */
export const escapeXml = (text) => String(text).replace(/[&<>"']/gu, (c) => ESCAPES[c]);

/** An element's text: its attributes (undefined and null left out), then its children (already text). */
function tag(name, attrs, children = '') {
  const written = Object.entries(attrs)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => ` ${k}="${escapeXml(v)}"`)
    .join('');
  return children === '' ? `<${name}${written}/>` : `<${name}${written}>${children}</${name}>`;
}

/** One shape as SVG, and what it adds to <defs> (a gradient). */
function shapeSvg(s, k) {
  const box = { x: s.x, y: s.y, width: s.w, height: s.h };
  if (s.type === 'rect') return { body: tag('rect', { ...box, fill: s.fill, class: s.cell ? 'aw-cell' : undefined }) };
  if (s.type === 'hatch') return { body: tag('rect', { ...box, fill: `url(#${HATCH})` }) };
  if (s.type === 'line') {
    const [x1, y1, x2, y2] = s.line;
    const stroke = { stroke: s.stroke ?? MARK, 'stroke-width': s.width ?? 3, 'stroke-linecap': 'square' };
    return { body: tag('line', { x1, y1, x2, y2, ...stroke, 'stroke-dasharray': s.dash }) };
  }
  if (s.type === 'polyline') {
    const points = s.points.map(([x, y]) => `${x},${y}`).join(' ');
    return { body: tag('polyline', { points, fill: 'none', stroke: s.stroke, 'stroke-width': s.width }) };
  }
  if (s.type === 'circle') return { body: tag('circle', { cx: s.x, cy: s.y, r: s.r, fill: s.fill }) };
  if (s.type === 'gradient') {
    const id = `aw-scale-${k}`;
    const stops = s.stops.map((color, n) => tag('stop', { offset: n / (s.stops.length - 1), 'stop-color': color }));
    return { defs: tag('linearGradient', { id }, stops.join('')), body: tag('rect', { ...box, fill: `url(#${id})` }) };
  }
  const attrs = {
    x: s.x,
    y: s.y,
    'font-size': s.size,
    'font-weight': s.weight,
    fill: s.fill ?? INK,
    'text-anchor': s.anchor,
    'dominant-baseline': 'central',
    transform: s.rotate ? `rotate(-90 ${s.x} ${s.y})` : undefined,
  };
  return { body: tag('text', attrs, escapeXml(s.text)) };
}

/**
 * The shapes as the text of an SVG file: a white background, then each shape in order (a rect with `cell` is
 * class="aw-cell"). Pure: no DOM.
 * @param {{ width: number, height: number, shapes: object[] }} laid
 */
export function svgText({ width, height, shapes }) {
  const drawn = shapes.map(shapeSvg);
  const pattern = tag(
    'pattern',
    { id: HATCH, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
    tag('rect', { width: 6, height: 6, fill: '#d9d9d9' }) + tag('rect', { width: 2, height: 6, fill: '#9a9a9a' }),
  );
  const defs = tag('defs', {}, pattern + drawn.map((d) => d.defs ?? '').join(''));
  const root = { xmlns: 'http://www.w3.org/2000/svg', width, height, viewBox: `0 0 ${width} ${height}` };
  const background = tag('rect', { width, height, fill: '#ffffff' });
  return tag('svg', { ...root, 'font-family': FONT }, defs + background + drawn.map((d) => d.body).join(''));
}

/** The shapes drawn on a canvas, as a PNG Blob, `scale` device pixels per CSS pixel (0.5 to 4, default 2). */
export function pngBlob({ width, height, shapes }, scale = 2) {
  const ratio = Math.max(0.5, Math.min(4, Number(scale) || 2));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const ctx = canvas.getContext('2d');
  ctx.scale(ratio, ratio);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  for (const s of shapes) draw(ctx, s);
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the canvas gave no PNG'))), 'image/png'),
  );
}

/** One shape on the canvas, as svgText writes it. */
function draw(ctx, s) {
  if (s.type === 'rect') {
    ctx.fillStyle = s.fill;
    ctx.fillRect(s.x, s.y, s.w, s.h);
  } else if (s.type === 'hatch') hatch(ctx, s);
  else if (s.type === 'line' || s.type === 'polyline') {
    const points = s.type === 'line' ? [s.line.slice(0, 2), s.line.slice(2)] : s.points;
    ctx.save();
    ctx.strokeStyle = s.stroke ?? MARK;
    ctx.lineWidth = s.width ?? 3;
    ctx.lineCap = s.type === 'line' ? 'square' : 'butt';
    if (s.dash) ctx.setLineDash(s.dash.split(' ').map(Number));
    ctx.beginPath();
    points.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.stroke();
    ctx.restore();
  } else if (s.type === 'circle') {
    ctx.fillStyle = s.fill;
    ctx.beginPath();
    ctx.arc(s.x, s.y, s.r, 0, 2 * Math.PI);
    ctx.fill();
  } else if (s.type === 'gradient') {
    const gradient = ctx.createLinearGradient(s.x, 0, s.x + s.w, 0);
    s.stops.forEach((color, n) => gradient.addColorStop(n / (s.stops.length - 1), color));
    ctx.fillStyle = gradient;
    ctx.fillRect(s.x, s.y, s.w, s.h);
  } else {
    ctx.save();
    ctx.font = font(s.size, s.weight);
    ctx.fillStyle = s.fill ?? INK;
    ctx.textAlign = s.anchor === 'end' ? 'right' : s.anchor === 'middle' ? 'center' : 'left';
    ctx.textBaseline = 'middle';
    ctx.translate(s.x, s.y);
    if (s.rotate) ctx.rotate(-Math.PI / 2);
    ctx.fillText(s.text, 0, 0);
    ctx.restore();
  }
}

/** Grey stripes over a masked cell, as in the SVG's pattern. */
function hatch(ctx, { x, y, w, h }) {
  ctx.save();
  ctx.fillStyle = '#d9d9d9';
  ctx.fillRect(x, y, w, h);
  ctx.beginPath();
  ctx.rect(x, y, w, h);
  ctx.clip();
  ctx.strokeStyle = '#9a9a9a';
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  for (let d = -h; d < w; d += 6) {
    ctx.moveTo(x + d, y + h);
    ctx.lineTo(x + d + h, y);
  }
  ctx.stroke();
  ctx.restore();
}

/** Saves a picture (SVG text or a PNG Blob, awaited) as a file, through a download link placed in `root`. */
export async function download(made, fileName, root) {
  const file = await made;
  const blob = typeof file === 'string' ? new Blob([file], { type: 'image/svg+xml' }) : file;
  const url = URL.createObjectURL(blob);
  const link = el('a', { href: url, download: fileName });
  root.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
