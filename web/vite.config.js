// Builds the demo page as static files with relative paths (any static host can serve web/dist).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const repo = fileURLToPath(new URL('..', import.meta.url));

/** The page's Content-Security-Policy, read from its <meta> (the one copy), also sent as a header by `vite preview`. */
const CSP = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(
  readFileSync(new URL('./index.html', import.meta.url), 'utf8'),
)[1];

/**
 * Preloads the SIMD build's Emscripten glue with the page, as index.html preloads its .wasm: the module's load then
 * waits for no request of its own (first numbers sooner). Browsers without SIMD load the scalar glue instead.
 */
const preloadGlue = {
  name: 'preload-wasm-glue',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler(html, { bundle }) {
      const glue = Object.values(bundle ?? {}).find(
        (chunk) => chunk.type === 'chunk' && /(^|\/)attention-simd-[^/]*\.js$/.test(chunk.fileName),
      );
      if (!glue) return html;
      const attrs = { rel: 'modulepreload', href: `./${glue.fileName}`, crossorigin: true };
      return [{ tag: 'link', attrs, injectTo: 'head' }];
    },
  },
};

export default defineConfig({
  plugins: [preloadGlue],
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  resolve: {
    alias: { 'attention-wasm': fileURLToPath(new URL('../src/js/index.js', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0, // data: URLs would break under default-src 'self'
    target: 'es2022',
  },
  server: { fs: { allow: [repo] } },
  preview: { headers: { 'Content-Security-Policy': CSP } },
});
