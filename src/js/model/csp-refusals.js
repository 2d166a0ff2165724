// Whether the page's Content-Security-Policy refused a fetch. A browser fails such a fetch as it fails one the
// network lost (a TypeError), and tells the page in a `securitypolicyviolation` event that comes after the fetch has
// failed, before the next task: so a failed fetch's message can name the directive to change instead of CORS. A
// redirect the policy refuses is reported with the address first asked for.

/**
 * Listens for the policy's refusals of connections (connect-src, or default-src without it) from now on. `refused(url)`
 * waits a task, stops listening and says whether a fetch of `url` was refused; `stop()` stops listening. Where there
 * is no such event (Node, Deno), nothing is ever refused.
 * @returns {{ refused: (url: string) => Promise<boolean>, stop: () => void }}
 */
export function watchRefusals() {
  const scope = globalThis;
  if (typeof scope.addEventListener !== 'function' || typeof scope.SecurityPolicyViolationEvent !== 'function') {
    return { refused: async () => false, stop: () => {} };
  }
  const blocked = [];
  const listen = (event) => {
    const directive = String(event.effectiveDirective ?? event.violatedDirective ?? '');
    if (/^(connect|default)-src/u.test(directive)) blocked.push(String(event.blockedURI ?? ''));
  };
  scope.addEventListener('securitypolicyviolation', listen);
  const stop = () => scope.removeEventListener('securitypolicyviolation', listen);
  return {
    stop,
    async refused(url) {
      await new Promise((resolve) => setTimeout(resolve));
      stop();
      const origin = new URL(url).origin;
      return blocked.some((uri) => uri === url || uri === origin || uri.startsWith(`${origin}/`));
    },
  };
}
