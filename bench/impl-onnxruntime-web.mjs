// Node's child process for onnxruntime-web (impls/onnxruntime-web.mjs); BENCH_THREADS=N runs it on N threads.
import { runChild } from './child.mjs';
import { onnxruntimeWeb } from './impls/onnxruntime-web.mjs';

runChild(onnxruntimeWeb({ threads: Number(process.env.BENCH_THREADS ?? 1) }));
