import { setImmediate as turn } from 'node:timers/promises';
import { decodeIds } from '../../sbom/store/id-list.js';

/** Component ids handled per turn of the event loop where a product's revisions are walked (~2–4 ms). */
const ID_SLICE = 20_000;

/**
 * Each component of the latest revisions → the releases that hold it, as the findings store them
 * (a JSON list, sorted). One string per combination of releases, shared by every component with
 * it (most products: one release, one string), a turn of the event loop per ID_SLICE ids: a Set
 * per component held the event loop ~50 ms for a 100,000-component revision.
 */
export async function releasesOfComponents(
  revisions: ReadonlyArray<{ component_ids: Uint8Array; release_version: string }>,
): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  // The list with one more release, by the list before ('' for none) and that release.
  const grown = new Map<string, string>();
  const withRelease = (before: string | undefined, release: string): string => {
    const key = `${before ?? ''}\u0000${release}`;
    let after = grown.get(key);
    if (after === undefined) {
      const list = new Set<string>(before === undefined ? [] : (JSON.parse(before) as string[]));
      list.add(release);
      after = JSON.stringify([...list].sort());
      grown.set(key, after);
    }
    return after;
  };
  let handled = 0;
  for (const revision of revisions) {
    const ids = decodeIds(revision.component_ids);
    for (let i = 0; i < ids.length; i++) {
      if (++handled % ID_SLICE === 0) await turn();
      const id = ids[i]!;
      out.set(id, withRelease(out.get(id), revision.release_version));
    }
  }
  return out;
}
