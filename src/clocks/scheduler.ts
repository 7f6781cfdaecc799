import { dueStages } from '../cases/due-stages.js';
import type { Database, Trx } from '../db/index.js';
import { keysRepo } from '../keys/keys.repo.js';
import { orgsRepo } from '../orgs/orgs.repo.js';
import { verifyRegistry } from '../registry/registry.service.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { emitEvent, existingDedupKeys } from '../webhooks/emit-event.js';
import { KEY_EXPIRY_NOTICE_MS, LOOKAHEAD_MS, reachedThreshold, stageDedupKey, stageEventData } from './clock-events.js';

export interface SchedulerDeps {
  database: Database;
  intervalMs: number;
  clock?: Clock;
  log?: { warn(obj: object, msg: string): void };
}

interface Pending {
  orgId: string;
  type: Parameters<typeof emitEvent>[2];
  data: Record<string, unknown>;
  dedupKey: string;
}

/**
 * The clock events: stage thresholds (6 h, 1 h, overdue) of every stage with a due time, keys expiring within 7 days, and the
 * hourly registry verification. Idempotent by construction: every event carries a dedup key
 * that the outbox accepts once, so restarts and any number of instances fire each threshold
 * once; the hourly job claims its hour in `scheduler_runs` first, so one instance runs it.
 */
export function createScheduler(deps: SchedulerDeps) {
  const { database } = deps;
  const clock = deps.clock ?? systemClock;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  async function emitAll(pending: Pending[], at: string): Promise<number> {
    const known = await existingDedupKeys(
      database.db,
      pending.map((p) => p.dedupKey),
    );
    const fresh = pending.filter((p) => !known.has(p.dedupKey));
    if (fresh.length === 0) return 0;
    return database.transaction(async (trx: Trx) => {
      let written = 0;
      for (const p of fresh) if (await emitEvent(trx, p.orgId, p.type, p.data, at, { dedupKey: p.dedupKey })) written++;
      return written;
    });
  }

  async function stageEvents(now: Date): Promise<Pending[]> {
    const stages = await dueStages(database, now, new Date(now.getTime() + LOOKAHEAD_MS));
    return stages.flatMap((stage): Pending[] => {
      const threshold = reachedThreshold(new Date(stage.due), now);
      if (!threshold) return [];
      const data = stageEventData(stage);
      const dedupKey = stageDedupKey(stage, threshold);
      return threshold === 'overdue'
        ? [{ orgId: stage.org_id, type: 'case.stage_overdue' as const, data, dedupKey }]
        : [{ orgId: stage.org_id, type: 'case.stage_due_soon' as const, data: { ...data, threshold }, dedupKey }];
    });
  }

  async function keyEvents(now: Date): Promise<Pending[]> {
    const keys = await keysRepo.expiringBetween(database.db, iso(now), iso(new Date(now.getTime() + KEY_EXPIRY_NOTICE_MS)));
    // Keyed by expiry too: a key whose expiry is moved later announces its new expiry again.
    return keys.map((k) => ({
      orgId: k.org_id,
      type: 'key.expiring' as const,
      data: { key_name: k.name, prefix: k.prefix, expires_at: k.expires_at },
      dedupKey: `key.expiring:${k.id}:${k.expires_at}`,
    }));
  }

  /** Claims this hour for the registry verification; false when another run (or instance) has it. */
  async function claimHour(now: Date): Promise<boolean> {
    const slot = iso(now).slice(0, 13);
    const claimed = await database.transaction((trx) =>
      trx
        .insertInto('scheduler_runs')
        .values({ job: 'registry.verify', slot, at: iso(now) })
        .onConflict((oc) => oc.columns(['job', 'slot']).doNothing())
        .returning('job')
        .executeTakeFirst(),
    );
    return claimed !== undefined;
  }

  async function registryEvents(now: Date): Promise<Pending[]> {
    if (!(await claimHour(now))) return [];
    const pending: Pending[] = [];
    for (const org of await orgsRepo.list(database.db)) {
      const check = await verifyRegistry(database, org.id);
      if (!check.ok) {
        // Once per break: the same broken entry is not announced again every hour.
        pending.push({
          orgId: org.id,
          type: 'registry.verification_failed',
          data: { first_broken: check.first_broken },
          dedupKey: `registry.broken:${org.id}:${check.first_broken}`,
        });
      }
    }
    return pending;
  }

  async function runOnce(): Promise<number> {
    const now = clock();
    const pending = [...(await stageEvents(now)), ...(await keyEvents(now)), ...(await registryEvents(now))];
    return emitAll(pending, iso(now));
  }

  return {
    /** One tick; resolves to the number of events written. */
    runOnce,

    start(): void {
      if (timer) return;
      const tick = () => {
        if (running) return;
        running = runOnce()
          .catch((error: unknown) => deps.log?.warn({ err: error }, 'webhook scheduler tick failed'))
          .finally(() => (running = undefined));
      };
      tick();
      timer = setInterval(tick, deps.intervalMs);
      timer.unref();
    },

    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
