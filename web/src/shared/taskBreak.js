// A task break: a message posted to itself, so that what the event loop has waiting (an input, a frame's paint) runs
// before what follows. The page's long computations (a run in parts, the logit lens) await it between their parts;
// a frame's follow-up (latency.js, renderScheduler.js) runs after it.

/** Resolves in a task of its own, after what is waiting. */
export const taskBreak = () =>
  new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
