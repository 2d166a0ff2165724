// Node's child process for plain JavaScript loops (impls/js-loops.mjs).
import { runChild } from './child.mjs';
import { jsLoops } from './impls/js-loops.mjs';

runChild(jsLoops());
