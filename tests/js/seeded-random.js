// The one seeded generator of the JS tests and the bench (tests/js/reference.js re-exports it); no test-runner
// imports, so plain Node scripts can use it too.

/** A seeded generator (mulberry32) of floats in [-1, 1). */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  };
}
