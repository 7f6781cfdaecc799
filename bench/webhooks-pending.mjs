// "API throughput unchanged while 1,000 deliveries are pending" (webhooks.md: delivery never
// slows the API). One server process on the embedded default (SQLite) with one webhook
// endpoint on a receiver at 127.0.0.1 that is slow and failing (503 after 500 ms), so the
// server's dispatcher keeps claiming, sending and recording attempts the whole time. Each round
// measures GET products and POST incidents with no delivery pending and right after 1,000
// deliveries were written to the outbox (through the same emitEvent as the real events, due at
// once), in alternating order; the row reports the median ratio pending/none with its range.
//
//   node bench/webhooks-pending.mjs [--duration 6] [--connections 50] [--rounds 3]
//   npm run bench -- --only webhooks
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase } from '../dist/db/index.js';
import { emitEvent } from '../dist/webhooks/emit-event.js';
import { stealMeter } from './cpu-steal.mjs';
import { admin, cannon, median, range, startProcess, summarise } from './http.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PENDING = 1000;
const ratio = (a, b) => Number((a / b).toFixed(2));

/** A receiver that answers 503 after `delayMs`: every delivery stays pending and is retried. */
async function slowFailingReceiver(delayMs) {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      setTimeout(() => res.writeHead(503).end(), delayMs);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    requests: () => requests,
    close: () => new Promise((r) => server.close(r)),
  };
}

async function pendingCount(database) {
  const row = await database.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(row.n);
}

/** Ends every pending delivery (the "none pending" condition). */
async function clearPending(database) {
  await database.transaction((trx) =>
    trx
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', claim_token: null, claimed_until: null })
      .where('status', '=', 'pending')
      .execute(),
  );
}

/** Writes `count` events, each with its pending delivery to the endpoint, due now. */
async function addPending(database, orgId, count) {
  const at = new Date().toISOString();
  await database.transaction(async (trx) => {
    for (let i = 0; i < count; i++) await emitEvent(trx, orgId, 'case.closed', { incident_number: 100_000 + i }, at);
  });
}

export async function runWebhooksBench({ duration = 6, connections = 50, rounds = 3, log = console.log } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cra-bench-webhooks-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'bench.db')}` };
  const receiver = await slowFailingReceiver(500);
  const org = admin(env, 'org', 'create', 'bench');
  const read = admin(env, 'key', 'create', '--org', 'bench', '--name', 'read', '--scopes', 'products:read').secret;
  const write = admin(env, 'key', 'create', '--org', 'bench', '--name', 'write', '--scopes', 'incidents:write').secret;
  for (let i = 1; i <= 20; i++)
    admin(env, 'product', 'add', '--org', 'bench', '--sku', `SKU-${i}`, '--name', `Product ${i}`, '--firmware-version', `1.${i}.0`);
  admin({ ...env, WEBHOOK_ALLOW_PRIVATE: 'true' }, 'webhook', 'add', '--org', 'bench', '--url', receiver.url);
  const service = await startProcess([join(ROOT, 'dist/server.js')], {
    ...env,
    RATE_LIMIT_PER_MINUTE: '1000000000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  const database = openDatabase(env.DATABASE_URL);
  const targets = [
    ['GET products', { url: `${service.url}/api/v1/external/products`, headers: { 'x-cra-api-key': read } }],
    [
      'POST incidents',
      {
        url: `${service.url}/api/v1/external/incidents`,
        method: 'POST',
        headers: { 'x-cra-api-key': write, 'content-type': 'application/json' },
        body: JSON.stringify({ description: 'Bench signal while deliveries are pending', sku: 'SKU-3' }),
      },
    ],
  ];
  const measured = new Map();
  try {
    await new Promise((r) => setTimeout(r, 6000)); // the server's start-up work, as in http.mjs
    for (let round = 1; round <= rounds; round++) {
      for (const [name, opts] of targets) {
        // Alternated between rounds, so neither condition is always the warmer, later measurement.
        for (const condition of round % 2 ? ['none', 'pending'] : ['pending', 'none']) {
          await clearPending(database);
          if (condition === 'pending') await addPending(database, org.id, PENDING);
          const before = await pendingCount(database);
          const sent = receiver.requests();
          await cannon({ connections, ...opts, duration: 2 }); // warm-up
          const steal = stealMeter();
          const row = { ...summarise(name, await cannon({ connections, ...opts, duration })), cpu_steal_pct: steal.stop() };
          row.pending_before = before;
          row.pending_after = await pendingCount(database);
          row.delivery_attempts = receiver.requests() - sent;
          log(
            `  round ${round} ${name}, ${condition === 'none' ? 'none pending' : `${before} pending`}: ${row.requests_per_second} req/s, ` +
              `p99 ${row.latency_p99_ms} ms, ${row.delivery_attempts} delivery attempts meanwhile, ${row.pending_after} still pending, ${row.cpu_steal_pct ?? '?'} % stolen`,
          );
          const key = `${name}|${condition}`;
          measured.set(key, [...(measured.get(key) ?? []), row]);
        }
      }
    }
  } finally {
    await database.close();
    await service.stop();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = targets.map(([name]) => {
    const none = measured.get(`${name}|none`);
    const pending = measured.get(`${name}|pending`);
    const ratios = pending.map((p, i) => ratio(p.requests_per_second, none[i].requests_per_second));
    return {
      name: `${name}, ${PENDING} deliveries pending`,
      rounds: ratios.length,
      none_requests_per_second: Math.round(median(none.map((r) => r.requests_per_second))),
      none_requests_per_second_range: range(none.map((r) => r.requests_per_second)),
      pending_requests_per_second: Math.round(median(pending.map((r) => r.requests_per_second))),
      pending_requests_per_second_range: range(pending.map((r) => r.requests_per_second)),
      ratio_pending_to_none: Number(median(ratios).toFixed(2)),
      ratio_pending_to_none_range: range(ratios),
      none_latency_p99_ms: median(none.map((r) => r.latency_p99_ms)),
      pending_latency_p99_ms: median(pending.map((r) => r.latency_p99_ms)),
      delivery_attempts_per_round: median(pending.map((r) => r.delivery_attempts)),
      per_round: pending.map((p, i) => ({ none: none[i], pending: p, ratio: ratios[i] })),
    };
  });
  return rows;
}

export function printWebhookRows(rows, log = console.log) {
  const pad = (v, n) => String(v).padEnd(n);
  const span = ([lo, hi]) => (lo === hi ? '' : ` (${lo}–${hi})`);
  log(
    `\n${pad('target', 46)}${pad('none: req/s (range)', 22)}${pad('pending: req/s (range)', 24)}${pad('ratio (range)', 20)}${pad('p99 ms none/pending', 22)}attempts/round`,
  );
  for (const r of rows) {
    log(
      `${pad(r.name, 46)}${pad(r.none_requests_per_second + span(r.none_requests_per_second_range), 22)}` +
        `${pad(r.pending_requests_per_second + span(r.pending_requests_per_second_range), 24)}${pad(r.ratio_pending_to_none + span(r.ratio_pending_to_none_range), 20)}` +
        `${pad(`${r.none_latency_p99_ms}/${r.pending_latency_p99_ms}`, 22)}${r.delivery_attempts_per_round}`,
    );
  }
}

/** Runs the row, prints it and writes bench/results-webhooks.json. */
export async function benchWebhooks(settings) {
  console.log(
    `Webhooks: ${settings.connections ?? 50} connections, ${settings.duration ?? 6} s per target after a 2 s warm-up, none vs ${PENDING} pending, ${settings.rounds ?? 3} interleaved rounds`,
  );
  const rows = await runWebhooksBench(settings);
  printWebhookRows(rows);
  const file = fileURLToPath(new URL('./results-webhooks.json', import.meta.url));
  writeFileSync(file, `${JSON.stringify({ measured_at: new Date().toISOString(), settings, webhooks: rows }, null, 2)}\n`);
  console.log('\nwrote bench/results-webhooks.json');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  benchWebhooks({ duration: arg('duration', 6), connections: arg('connections', 50), rounds: arg('rounds', 3) }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
