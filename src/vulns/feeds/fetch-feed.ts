import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../errors.js';
import { pinnedLookup } from '../../webhooks/send.js';
import { type Lookup, resolveTarget, systemLookup } from '../../webhooks/ssrf.js';

// Feeds named by URL are fetched with the webhooks' guard (https only, no private address unless
// FEEDS_ALLOW_PRIVATE; the socket connects to exactly the addresses checked), conditionally
// (ETag, Last-Modified), within a size bound and timeouts, into a temporary file that the
// import then reads like any other.

export interface FetchPolicy {
  allowPrivate: boolean;
  lookup?: Lookup;
  /** The largest download (osv.dev's all.zip is under 1 GiB). */
  maxBytes: number;
  /** Whole download, and silence between two chunks. */
  timeoutMs: number;
  idleMs: number;
  /** NVD_API_KEY: sent to the NVD's CVE API, which then allows ten times the requests (nvd-api.ts). */
  nvdApiKey?: string | null;
  /** The pause between two pages of the NVD's CVE API; by default what its rate limit asks. */
  nvdPageDelayMs?: number;
}

export const DEFAULT_FETCH_POLICY: FetchPolicy = {
  allowPrivate: false,
  maxBytes: 2 * 1024 ** 3,
  timeoutMs: 30 * 60_000,
  idleMs: 60_000,
};

export type Fetched =
  | { status: 'unchanged' }
  | { status: 'fetched'; path: string; etag: string | null; lastModified: string | null; cleanup(): Promise<void> };

const MAX_REDIRECTS = 3;

/** GETs `url` into a temporary file; `unchanged` on 304. Refuses with an AppError saying why. */
export async function fetchFeed(
  url: string,
  policy: FetchPolicy,
  known: { etag: string | null; lastModified: string | null } | null,
  extraHeaders: Record<string, string> = {},
): Promise<Fetched> {
  const dir = await mkdtemp(join(tmpdir(), 'cra-feed-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const target = await resolveTarget(
        current,
        { allowPrivate: policy.allowPrivate, lookup: policy.lookup ?? systemLookup },
        'a feed URL',
      );
      // A key for the feed's own host is not handed to another that it redirects to.
      const headers = target.url.origin === new URL(url).origin ? extraHeaders : {};
      const answer = await get(target.url, target.addresses, policy, known, join(dir, 'feed'), headers);
      if (answer.kind === 'redirect') {
        // Each hop is checked again: a redirect is not a way around the address check.
        if (hop >= MAX_REDIRECTS) throw new AppError('validation_failed', `${url}: more than ${MAX_REDIRECTS} redirects`);
        current = new URL(answer.location, target.url).href;
        continue;
      }
      if (answer.kind === 'unchanged') {
        await cleanup();
        return { status: 'unchanged' };
      }
      return { status: 'fetched', path: join(dir, 'feed'), etag: answer.etag, lastModified: answer.lastModified, cleanup };
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
}

type Answer =
  | { kind: 'redirect'; location: string }
  | { kind: 'unchanged' }
  | { kind: 'body'; etag: string | null; lastModified: string | null };

function get(
  url: URL,
  addresses: Parameters<typeof pinnedLookup>[0],
  policy: FetchPolicy,
  known: { etag: string | null; lastModified: string | null } | null,
  file: string,
  extraHeaders: Record<string, string>,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const fail = (message: string) => {
      request.destroy();
      reject(new AppError('service_unavailable', `${url.href}: ${message}`));
    };
    const client = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { 'user-agent': 'cra-feeds/1', accept: '*/*', ...extraHeaders };
    if (known?.etag) headers['if-none-match'] = known.etag;
    if (known?.lastModified) headers['if-modified-since'] = known.lastModified;
    const request = client.request(url, { method: 'GET', agent: false, lookup: pinnedLookup(addresses), headers });
    const overall = setTimeout(() => fail(`not complete after ${policy.timeoutMs / 1000} s`), policy.timeoutMs);
    request.setTimeout(policy.idleMs, () => fail(`no data for ${policy.idleMs / 1000} s`));
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(overall);
      reject(new AppError('service_unavailable', `${url.href}: ${error.code ?? error.message}`));
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && status !== 304 && response.headers.location) {
        clearTimeout(overall);
        response.resume();
        return resolve({ kind: 'redirect', location: response.headers.location });
      }
      if (status === 304) {
        clearTimeout(overall);
        response.resume();
        return resolve({ kind: 'unchanged' });
      }
      if (status !== 200) {
        clearTimeout(overall);
        response.resume();
        return fail(`answered ${status}`);
      }
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > policy.maxBytes) {
        clearTimeout(overall);
        return fail(`is ${declared} bytes (at most ${policy.maxBytes})`);
      }
      const out = createWriteStream(file, { mode: 0o600 });
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > policy.maxBytes) {
          clearTimeout(overall);
          out.destroy();
          fail(`is larger than ${policy.maxBytes} bytes`);
        }
      });
      response.pipe(out);
      const broken = () => {
        clearTimeout(overall);
        out.destroy();
        fail('the connection broke before the body was complete');
      };
      response.on('aborted', broken);
      response.on('error', broken);
      out.on('error', (error) => {
        clearTimeout(overall);
        fail(`could not be stored: ${error.message}`);
      });
      out.on('finish', () => {
        clearTimeout(overall);
        const header = (name: string) => (typeof response.headers[name] === 'string' ? (response.headers[name] as string) : null);
        resolve({ kind: 'body', etag: header('etag'), lastModified: header('last-modified') });
      });
    });
    request.end();
  });
}
