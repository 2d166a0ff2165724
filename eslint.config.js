// ESLint (flat config): @eslint/js's recommended rules over every JS file, with the globals of where each runs.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['node_modules/', 'build/', 'src/js/wasm/', 'src/js/inline.js', 'web/dist/', 'tests/artifacts/'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      'max-lines': ['error', { max: 400 }], // house rule: no JS file over 400 lines
    },
  },
  // The library and the page run in browsers and workers (the library also in Node, behind runtime checks).
  {
    files: ['src/js/**/*.js', 'web/src/**/*.js'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
  },
  // Tests run in Node and, through Vitest's browser project or page.evaluate(), in Chromium.
  { files: ['tests/**/*.{js,mjs}'], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
  // Build, bench and tooling scripts: Node only.
  {
    files: ['bench/**/*.mjs', 'scripts/**/*.{js,mjs}', '*.config.js', 'web/vite.config.js'],
    languageOptions: { globals: globals.node },
  },
];
