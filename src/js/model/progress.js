// loadModel's `onProgress`, called so that a handler that throws is reported as itself: the load, run or generation
// it follows stops with BAD_OPTION saying that onProgress threw (the handler's error as its cause), never as a
// network failure or a failure of the model. The cache's event, which comes after the run that fetched what is
// written, has no caller left to tell: a handler that throws there is ignored (web-reads.js).
import { AttentionError } from '../errors.js';

/** The handler, wrapped; undefined when there is none. */
export function progressReporter(onProgress) {
  if (!onProgress) return undefined;
  return (event) => {
    try {
      onProgress(event);
    } catch (cause) {
      throw new AttentionError(
        'BAD_OPTION',
        `onProgress threw at its '${event.phase}' event (see the cause): what it followed is stopped; a progress handler must not throw`,
        { cause },
      );
    }
  };
}
