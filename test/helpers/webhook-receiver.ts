import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** One request as the receiver saw it. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: IncomingHttpHeaders;
  /** Whether the Standard Webhooks library verified it with the receiver's secret at that time. */
  verified: boolean;
}

/** What the receiver answers: a status, or 'hang' (never answer; the sender must time out). */
export type Behaviour = (request: Received) => number | 'hang';

/**
 * A real webhook receiver on 127.0.0.1: verifies every request with the `standardwebhooks`
 * library (as a customer's would) and processes each webhook-id once (the at-least-once dedup).
 */
export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Verified messages, one per webhook-id, in the order first processed. */
  processed: Map<string, unknown>;
  secret: string | null;
  behaviour: Behaviour;
  /** Verifies `request` with another secret (rotation tests). */
  verifiesWith(secret: string, request: Received): boolean;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function verify(secret: string, r: Pick<Received, 'id' | 'timestamp' | 'signature' | 'body'>): boolean {
  try {
    new Webhook(secret).verify(r.body, { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature });
    return true;
  } catch {
    return false;
  }
}

export async function startReceiver(): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    processed: new Map(),
    secret: null,
    behaviour: () => 200,
    verifiesWith: (secret, request) => verify(secret, request),
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${receiver.received.length} requests, expected ${count}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      for (const response of hanging) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const header = (name: string) => String(req.headers[name] ?? '');
      const request: Received = {
        id: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        body,
        headers: req.headers,
        verified: false,
      };
      request.verified = receiver.secret !== null && verify(receiver.secret, request);
      receiver.received.push(request);
      const answer = receiver.behaviour(request);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (answer >= 200 && answer < 300 && request.verified && !receiver.processed.has(request.id))
        receiver.processed.set(request.id, JSON.parse(body));
      res.writeHead(request.verified ? answer : 400).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.port = (server.address() as { port: number }).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  return receiver;
}
