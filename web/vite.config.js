// Builds the demo page as static files with relative paths (any static host can serve web/dist).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const repo = fileURLToPath(new URL('..', import.meta.url));

/** The page's Content-Security-Policy, also sent as a header by `vite preview` and the e2e server. */
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

export default defineConfig({
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
