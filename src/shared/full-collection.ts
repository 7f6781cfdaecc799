import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Garbage collections on request. V8 offers no other way to ask for one than the `gc` function
// of --expose-gc, which a context created after the flag is set has. Changing a V8 flag after
// start is allowed but not promised to work everywhere: without it, callers go on with V8's own
// timing of collections.

export type Gc = (options?: { type: 'minor' | 'major' }) => void;

let exposed: Gc | null | undefined;

/** V8's `gc`, or null where it cannot be had. */
export function exposedGc(): Gc | null {
  if (exposed === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      exposed = runInNewContext('gc') as Gc;
    } catch {
      exposed = null;
    }
  }
  return exposed;
}

/**
 * A full collection now, stopping the thread for it (~20 ms at an import's 30 MB of live data).
 * For a process doing one bulk job that may pause (cra-admin), never one serving requests.
 */
export function fullCollection(): void {
  // Without options: on Node 20, `{ type: 'major' }` leaves the heap as it was (Node 24 collects).
  exposedGc()?.();
}
