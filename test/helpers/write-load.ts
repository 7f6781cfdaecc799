import assert from 'node:assert/strict';

// Clients looping POST /incidents against a server process while a test breaks its database.
// Every answer must be 201 or a 503 `service_unavailable` with Retry-After: anything else (a
// 500, a dropped connection, an exited process) is recorded as a problem.

export interface WriteLoad {
  /** Incident numbers acknowledged with 201. */
  readonly acked: number[];
  /** Answers other than 201 / a well-formed 503. */
  readonly problems: string[];
  readonly unavailable: number;
  /** Longest time any request took, in ms. */
  readonly slowestMs: number;
  /** Starts measuring slowestMs afresh (requests in flight count with their whole time). */
  resetSlowest(): void;
  /** Resolves when a 201 arrives after this call; rejects after `timeoutMs`. */
  nextSuccess(timeoutMs?: number): Promise<void>;
  /** Resolves when a 503 arrives after this call; rejects after `timeoutMs`. */
  nextUnavailable(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export function startWriteLoad(baseUrl: string, key: string, clients = 8): WriteLoad {
  let running = true;
  let okCount = 0;
  const acked: number[] = [];
  const problems: string[] = [];
  let unavailable = 0;
  let slowestMs = 0;

  async function client(id: number): Promise<void> {
    for (let i = 0; running; i++) {
      const started = performance.now();
      try {
        const res = await fetch(`${baseUrl}/api/v1/external/incidents`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-cra-api-key': key },
          body: JSON.stringify({ description: `client ${id} write ${i}` }),
        });
        const text = await res.text();
        if (res.status === 201) {
          acked.push((JSON.parse(text) as { incident_number: number }).incident_number);
          okCount++;
        } else if (res.status === 503 && JSON.parse(text).code === 'service_unavailable' && Number(res.headers.get('retry-after')) >= 1) {
          unavailable++;
          // A client that honours Retry-After would wait; these retry sooner to keep pressure on.
          await new Promise((r) => setTimeout(r, 20));
        } else {
          problems.push(`${res.status} retry-after=${res.headers.get('retry-after')} ${text.slice(0, 300)}`);
        }
      } catch (error) {
        problems.push(`request failed: ${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      slowestMs = Math.max(slowestMs, performance.now() - started);
    }
  }
  const loops = Array.from({ length: clients }, (_, id) => client(id));

  async function waitFor(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) assert.fail(`no ${what} within ${timeoutMs} ms; problems so far: ${problems.slice(0, 5).join(' | ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  return {
    acked,
    problems,
    get unavailable() {
      return unavailable;
    },
    get slowestMs() {
      return slowestMs;
    },
    resetSlowest() {
      slowestMs = 0;
    },
    nextSuccess(timeoutMs = 15_000) {
      const seen = okCount;
      return waitFor(() => okCount > seen, '201', timeoutMs);
    },
    nextUnavailable(timeoutMs = 15_000) {
      const seen = unavailable;
      return waitFor(() => unavailable > seen, '503', timeoutMs);
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Every acknowledged number is stored, and the stored numbers are exactly 1…N. */
export function assertNothingLost(acked: readonly number[], stored: readonly number[]): void {
  const storedSet = new Set(stored);
  const missing = acked.filter((n) => !storedSet.has(n));
  assert.deepEqual(missing, [], 'acknowledged incidents missing from the database');
  assert.equal(new Set(acked).size, acked.length, 'an incident number was acknowledged twice');
  const sorted = [...stored].sort((a, b) => a - b);
  assert.deepEqual(
    sorted,
    Array.from({ length: sorted.length }, (_, i) => i + 1),
    'incident numbers are not gap-free',
  );
}
