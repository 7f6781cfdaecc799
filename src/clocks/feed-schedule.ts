import type { Database } from '../db/index.js';
import { iso, systemClock, type Clock } from '../shared/time.js';

// VULN_FEEDS: the server fetches the configured feeds every VULN_FEEDS_EVERY, one instance at a
// time: each period is claimed in `scheduler_runs` first (like the hourly registry check), so
// several instances on one database fetch each feed once per period.

export interface FeedScheduleDeps {
  database: Database;
  urls: readonly string[];
  everyMs: number;
  importFeeds(urls: readonly string[]): Promise<Array<{ kind: string; source: string; records: number; new: number; changed: number }>>;
  clock?: Clock;
  /** How often the claim is tried (a minute, or the period when shorter). */
  tickMs?: number;
  log?: { info?(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

export function createFeedSchedule(deps: FeedScheduleDeps) {
  const clock = deps.clock ?? systemClock;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  /** Claims the current period; false when it was claimed already (here or by another instance). */
  async function claim(now: Date): Promise<boolean> {
    const slot = String(Math.floor(now.getTime() / deps.everyMs));
    const claimed = await deps.database.transaction((trx) =>
      trx
        .insertInto('scheduler_runs')
        .values({ job: 'vuln.feeds', slot, at: iso(now) })
        .onConflict((oc) => oc.columns(['job', 'slot']).doNothing())
        .returning('job')
        .executeTakeFirst(),
    );
    return claimed !== undefined;
  }

  /** One tick: imports the feeds if this period is not claimed yet; resolves to whether it ran. */
  async function runOnce(): Promise<boolean> {
    if (deps.urls.length === 0 || !(await claim(clock()))) return false;
    for (const url of deps.urls) {
      // One failing feed (down, refused) does not keep the others from being fetched.
      try {
        for (const s of await deps.importFeeds([url])) {
          deps.log?.info?.(
            { feed: s.source, kind: s.kind, records: s.records, new: s.new, changed: s.changed },
            'vulnerability feed imported',
          );
        }
      } catch (error) {
        deps.log?.warn({ err: error, feed: url }, 'vulnerability feed could not be imported');
      }
    }
    return true;
  }

  return {
    runOnce,
    start(): void {
      if (timer || deps.urls.length === 0) return;
      const tick = () => {
        if (running) return;
        running = runOnce()
          .catch((error: unknown) => deps.log?.warn({ err: error }, 'vulnerability feed schedule failed'))
          .finally(() => (running = undefined));
      };
      tick();
      timer = setInterval(tick, deps.tickMs ?? Math.min(60_000, deps.everyMs));
      timer.unref();
    },
    /** Stops ticking; resolves once an import under way has finished. */
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
