import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { createBodyBudget } from '../../../src/sbom/http/body-budget.js';

// The bound on SBOM bodies in memory, on a Fastify server of its own: an authentication that
// takes its time (as a key lookup on a busy database does), and clients that leave or trickle.

const MiB = 1024 * 1024;

describe('body budget', () => {
  let app: FastifyInstance;
  let port: number;
  const budget = createBodyBudget({ budgetBytes: 100 * MiB, maxBodyBytes: 50 * MiB });

  before(async () => {
    app = Fastify();
    app.decorateRequest('principal', null);
    app.addHook('onRequest', async (request) => {
      await new Promise((r) => setTimeout(r, 200));
      (request as unknown as { principal: { orgId: string } }).principal = { orgId: String(request.headers['x-org']) };
    });
    app.post('/sbom', { preParsing: budget.reserve, bodyLimit: 50 * MiB }, async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  after(() => app.close());

  /** Sends the head of a POST, then either leaves after `leaveAfterMs` or keeps sending nothing. */
  const head = (org: string, length: string | null, leaveAfterMs?: number) =>
    new Promise<{ close: () => void; status: Promise<number> }>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        const size = length === null ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
        socket.write(`POST /sbom HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Org: ${org}\r\n${size}\r\n\r\n`);
        if (leaveAfterMs !== undefined) setTimeout(() => socket.destroy(), leaveAfterMs);
        resolve({ close: () => socket.destroy(), status });
      });
      socket.on('error', () => {});
      let text = '';
      const status = new Promise<number>((done) => {
        socket.on('data', (chunk) => {
          text += chunk.toString('latin1');
          const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
          if (match) done(Number(match[1]));
        });
      });
    });
  const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('a client that leaves while it is authenticated holds nothing afterwards', async () => {
    await head('a', null, 50);
    await head('a', String(20 * MiB), 50);
    await settle(500);
    assert.equal(budget.heldBytes, 0);
    assert.equal(budget.heldFor('a'), 0);
  });

  it("one organisation's bodies hold at most half; the others keep the other half; all is given back", async () => {
    // Thirteen bodies of 8 MiB that never arrive: six fit in the organisation's 50 MiB.
    const trickles = await Promise.all(Array.from({ length: 13 }, () => head('a', String(8 * MiB))));
    await settle(400);
    assert.equal(budget.heldFor('a'), 48 * MiB);
    const refused = await Promise.all(trickles.map((t) => Promise.race([t.status, settle(300).then(() => 0)])));
    assert.equal(refused.filter((s) => s === 503).length, 7, JSON.stringify(refused));
    // Another organisation still has room for a body of the maximum size, chunked.
    const theirs = await head('b', null);
    await settle(400);
    assert.equal(budget.heldFor('b'), 50 * MiB);
    for (const t of [...trickles, theirs]) t.close();
    await settle(300);
    assert.equal(budget.heldBytes, 0);
  });
});

describe('body budget: an account of bytes as they arrive (the report form)', () => {
  /** A request and its reply, as far as the budget looks at them; `close()` is the connection closing. */
  function exchange() {
    const raw = new EventEmitter() as EventEmitter & { destroyed: boolean; closed: boolean };
    raw.destroyed = false;
    raw.closed = false;
    const request = { raw: { destroyed: false } } as unknown as FastifyRequest;
    const reply = { raw } as unknown as FastifyReply;
    return { request, reply, close: () => raw.emit('close') };
  }

  it("holds nothing up front, then what arrives, within the organisation's half and the bound; gives it all back", () => {
    const budget = createBodyBudget({ budgetBytes: 100 * MiB, maxBodyBytes: 50 * MiB });
    const a1 = exchange();
    const a2 = exchange();
    const b = exchange();
    const accountA1 = budget.account(a1.request, a1.reply, 'a')!;
    const accountA2 = budget.account(a2.request, a2.reply, 'a')!;
    const accountB = budget.account(b.request, b.reply, 'b')!;
    assert.equal(budget.heldBytes, 0, 'nothing for bodies that have not come');
    assert.equal(accountA1.take(30 * MiB), 'held');
    assert.equal(accountA2.take(20 * MiB), 'held');
    assert.equal(accountA2.take(1), 'share', "past the organisation's half");
    assert.equal(accountB.take(50 * MiB), 'held', 'the other half is theirs');
    assert.equal(budget.heldFor('a'), 50 * MiB);
    a1.close();
    assert.equal(budget.heldFor('a'), 20 * MiB);
    assert.equal(accountA1.take(1), 'gone');
    a2.close();
    b.close();
    assert.equal(budget.heldBytes, 0);
  });

  it('answers null for a client already gone, holding nothing', () => {
    const budget = createBodyBudget({ budgetBytes: 100 * MiB, maxBodyBytes: 50 * MiB });
    const gone = exchange();
    (gone.reply.raw as unknown as { closed: boolean }).closed = true;
    assert.equal(budget.account(gone.request, gone.reply, 'a'), null);
  });
});
