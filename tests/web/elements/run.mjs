// The embeddable elements in Chromium: the raw files of the repository under a strict CSP.
// Run: node --test-reporter=spec tests/web/elements/run.mjs
import './numbers.mjs';
import './behaviour.mjs';
import './hostile.mjs';
import './embed.mjs';
import './size.mjs';
import './truth.mjs';
import './readable.mjs';
import './authoring.mjs';
import './pictures.mjs';
import './fallback.mjs';
import './model.mjs';
import './model-loading.mjs';
import './model-view.mjs';
import './counting.mjs';
import './model-marks.mjs';
import './instruments.mjs';
import './instrument-heads.mjs';
import './instrument-pictures.mjs';
