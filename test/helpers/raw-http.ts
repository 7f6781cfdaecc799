import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting to the end of the response (or the close). */
  elapsedMs: number;
  /** Whether the server closed the connection after answering. */
  closed: boolean;
}

/** Parses the first HTTP/1.1 response in `raw` once it is complete (Content-Length bodies only). */
function parseResponse(raw: Buffer): { status: number; headers: Record<string, string>; body: string } | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (raw.length < end + 4 + length) return null;
  return { status, headers, body: raw.subarray(end + 4, end + 4 + length).toString('utf8') };
}

export interface RawOptions {
  /** Give up after this long without a complete response (the result then has status 0). */
  timeoutMs?: number;
  /** Called once connected, to send more (slowly, say) after the initial bytes. */
  then?: (socket: Socket) => void;
}

/**
 * Sends `request` bytes as they are (no client-side checks, so malformed requests reach the
 * server) and resolves with the first response, or status 0 if none came before the server
 * closed the connection or the timeout passed.
 */
export function rawRequest(port: number, request: string | Buffer, options: RawOptions = {}): Promise<RawResponse> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const parsed = parseResponse(received);
      resolve({ ...(parsed ?? { status: 0, headers: {}, body: received.toString('latin1') }), elapsedMs: Date.now() - started, closed });
      socket.destroy();
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs ?? 5000);
    socket.on('connect', () => {
      socket.write(request);
      options.then?.(socket);
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      // Give the server a moment to close after a complete answer, to report whether it did: one
      // that says `Connection: close` is waited for (up to 2 s; a loaded machine closes late).
      const parsed = parseResponse(received);
      if (parsed) {
        const closing = /close/i.test(parsed.headers.connection ?? '');
        setTimeout(() => finish(socket.readableEnded || socket.destroyed), closing ? 2_000 : 20);
      }
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
}
