// The native contender of the model bench as a child process (native.cc): one forward per `run()`, so that its
// rounds interleave with the JavaScript contenders' in the same loop.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createInterface } from 'node:readline';

/** Starts `binary` on the checkpoint folder and ids; run() → { totalMs, coreMs, readMs }; outputs() reads a dump. */
export function startNative(binary, dir, ids, sizes) {
  const child = spawn(binary, [dir, ids.join(','), String(sizes.layers), String(sizes.heads)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.resolve(JSON.parse(line)));
  child.on('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the native bench exited with ${code}`));
  });
  const command = (line) =>
    new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      child.stdin.write(`${line}\n`);
    });
  const { layers, heads, vocab } = sizes;
  const n = ids.length;
  return {
    name: 'native',
    run: () => command('run'),
    /** The last run's attentions and logits, as the JS contenders return them. */
    async outputs(file) {
      await command(`dump ${file}`);
      const bytes = fs.readFileSync(file);
      const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
      const per = heads * n * n;
      const attentions = Array.from({ length: layers }, (_, l) => all.subarray(l * per, (l + 1) * per));
      fs.rmSync(file);
      return { attentions, logits: all.subarray(layers * per, layers * per + n * vocab) };
    },
    close: () => {
      child.stdin.end('quit\n');
      return new Promise((resolve) => child.on('close', resolve));
    },
  };
}
