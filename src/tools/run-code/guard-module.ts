/**
 * The guard module of every sandbox isolate (`a2a-guard.js`): the wall-clock and iteration limit
 * the transpiler calls at every loop iteration and every function entry, and the record of which
 * modules ran. Sealed against the code it guards:
 * - user modules import `guard` under a name with a per-run random part, so no code can name it
 *   (there is no eval in the isolate); an import binding cannot be reassigned;
 * - user code cannot import this module: its imports are rewritten to the harness's `require`,
 *   which resolves workspace modules only; `arm` works once, before any user code runs;
 * - the clock (`Date.now`) and the error class are captured when this module is evaluated, before
 *   any user code, so replacing `Date.now` or `RangeError` changes nothing here;
 * - the clock is read at every call (no stride to outrun), and once stopped every later call throws
 *   again, so code that catches the error is stopped at its next iteration or call.
 * The clock must tick: inside a request it does locally, so all user code runs from the harness's
 * request handler, never while a module is evaluated (the runtime's clock stands still then).
 * Plain JavaScript, built as a string: it runs in the loaded isolate, not in this Worker.
 */

/** The module's name in the isolate. */
export const GUARD_MODULE = "a2a-guard.js";

/** The guard module's source. */
export const guardModule = `const now = Date.now;
const Stop = RangeError;
let deadline = Infinity;
let maxCalls = Infinity;
let wallMs = 0;
let calls = 0;
let armed = false;
let stopped = null;
export function arm(limits) {
  if (armed) throw new Stop("the guard is armed once");
  armed = true;
  wallMs = limits.wallMs;
  maxCalls = limits.maxIterations;
  deadline = now() + wallMs;
}
export function guard() {
  if (stopped !== null) throw stopped;
  if (++calls > maxCalls)
    stopped = new Stop("iteration limit: loops and calls ran more than " + maxCalls + " times");
  else if (now() > deadline)
    stopped = new Stop("time limit: the code ran for more than " + wallMs + " ms (a loop that never ends?)");
  if (stopped !== null) throw stopped;
}
export function stoppedBy() {
  return stopped;
}
const ranPaths = [];
export function ran(path) {
  ranPaths.push(path);
}
export function modulesRan() {
  return ranPaths.slice();
}
`;
