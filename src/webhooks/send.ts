import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress, Target } from './ssrf.js';

export interface SendResult {
  /** The HTTP status, or null when no response arrived. */
  status: number | null;
  /** Why the attempt failed without a status (timeout, refused, TLS…); null otherwise. */
  error: string | null;
  durationMs: number;
}

/** A lookup that answers with the already-checked addresses: the socket connects to nothing else. */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const usable = options.family ? addresses.filter((a) => a.family === options.family) : addresses;
    const chosen = usable.length > 0 ? usable : addresses;
    if (options.all) (callback as (err: null, all: ResolvedAddress[]) => void)(null, chosen);
    else callback(null, chosen[0]!.address, chosen[0]!.family);
  };
}

/**
 * POSTs `body` to the target and settles within `timeoutMs` whatever the receiver does. The
 * socket is asynchronous I/O: nothing here holds the event loop. Redirects are not followed
 * (a 3xx is a failure: following one would bypass the address check). The response body is
 * not read: only the status matters, and a receiver cannot make us buffer anything.
 */
export function postJson(target: Target, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const client = target.url.protocol === 'https:' ? https : http;
    let settled = false;
    const finish = (status: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, error, durationMs: elapsed() });
    };
    const request = client.request(target.url, {
      method: 'POST',
      // A fresh connection per attempt: a pooled socket could have been opened to other addresses.
      agent: false,
      lookup: pinnedLookup(target.addresses),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'cra-webhooks/1',
      },
    });
    const timer = setTimeout(() => {
      finish(null, `timed out after ${timeoutMs} ms`);
      request.destroy();
    }, timeoutMs);
    request.on('response', (response) => {
      finish(response.statusCode ?? null, null);
      response.destroy();
    });
    request.on('error', (error: NodeJS.ErrnoException) => finish(null, error.code ? `${error.code}: ${error.message}` : error.message));
    request.end(body);
  });
}
