// Page tests: the built demo page (web/dist, from scripts/build.sh) served under its strict CSP and driven in
// Debian's Chromium. Run: node --test-reporter=spec tests/web/e2e/run.mjs
import './session.mjs';
import './steps.mjs';
import './inputs.mjs';
import './strict.mjs';
import './fixes.mjs';
import './lessons.mjs';
import './lessons-heads.mjs';
import './lessons-why.mjs';
import './rope.mjs';
import './bigmodel.mjs';
import './bigmodel-file.mjs';
import './fast.mjs';
import './layer.mjs';
import './seed-ahead.mjs';
import './near-screen.mjs';
import './warm.mjs';
import './truth.mjs';
import './readable.mjs';
import './print.mjs';
import './texts.mjs';
import './real-model.mjs';
import './real-model-files.mjs';
import './real-model-generate.mjs';
import './real-model-views.mjs';
import './real-model-edits.mjs';
import './views.mjs';
