import { createReadStream } from 'node:fs';
import { AppError } from '../../errors.js';
import { type FetchPolicy, fetchFeed } from './fetch-feed.js';
import { feedItems, type NvdItem, type NvdSource, NvdSourceError } from './nvd-source.js';

// The NVD's CVE API 2.0 (https://nvd.nist.gov/developers/vulnerabilities) as a feed: its pages
// fetched one after the other through the feeds' guard (fetch-feed.ts), each streamed like a
// feed file; after a first import only the records modified since the last one are asked for
// (lastModStartDate/lastModEndDate, in windows of at most 120 days, the API's limit); a pause
// between pages keeps within its rate limit (5 requests in 30 s, 50 with an API key).

/** The API's own address ends so; a mirror of it on another host is read the same way. */
const API_PATH = /\/rest\/json\/cves\/2\.0\/?$/;
const PAGE = 2_000;
const WINDOW_MS = 120 * 86_400_000;
export const NVD_DELAY_MS = 6_000;
export const NVD_DELAY_WITH_KEY_MS = 600;

/** Whether a feed URL names the NVD's CVE API (rather than a file). */
export function isNvdApi(url: string): boolean {
  try {
    const parsed = new URL(url);
    return API_PATH.test(parsed.pathname) && parsed.search === '';
  } catch {
    return false;
  }
}

/** The API's date form: ISO 8601 with an explicit offset. */
const apiDate = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

/**
 * The records the API holds (or those modified in [since, until) when `since` is given), page by
 * page. `size` and `done()` count records, once the first page has said how many there are.
 */
export function nvdApiSource(url: string, policy: FetchPolicy, window: { since: number | null; until: number }): NvdSource {
  const key = policy.nvdApiKey ?? null;
  const delay = policy.nvdPageDelayMs ?? (key ? NVD_DELAY_WITH_KEY_MS : NVD_DELAY_MS);
  const windows: Array<[number, number] | null> = [];
  if (window.since === null) windows.push(null);
  else for (let from = window.since; from < window.until; from += WINDOW_MS) windows.push([from, Math.min(from + WINDOW_MS, window.until)]);
  const state = { size: 0, done: 0 };
  let requests = 0;
  async function* items(): AsyncGenerator<NvdItem> {
    for (const range of windows) {
      let start = 0;
      let total = 0;
      do {
        const page = new URL(url);
        page.searchParams.set('resultsPerPage', String(PAGE));
        page.searchParams.set('startIndex', String(start));
        if (range) {
          page.searchParams.set('lastModStartDate', apiDate(range[0]));
          page.searchParams.set('lastModEndDate', apiDate(range[1]));
        }
        if (requests++ > 0 && delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        const fetched = await fetchFeed(page.href, policy, null, key ? { apiKey: key } : {});
        if (fetched.status !== 'fetched')
          throw new AppError('service_unavailable', `${page.href}: answered 304 to a request without a condition`);
        let fields: Record<string, unknown>;
        try {
          const pageItems = feedItems(createReadStream(fetched.path), `the page from ${start}: `, null);
          let step = await pageItems.next();
          for (; !step.done; step = await pageItems.next()) {
            state.done++;
            yield step.value;
          }
          fields = step.value;
        } finally {
          await fetched.cleanup();
        }
        const [pageTotal, perPage] = [Number(fields.totalResults), Number(fields.resultsPerPage)];
        if (!Number.isInteger(pageTotal) || !Number.isInteger(perPage) || pageTotal < 0 || perPage < 0)
          throw new NvdSourceError(`the page from ${start} has no totalResults and resultsPerPage: not a CVE API 2.0 response`);
        if (start === 0) state.size += pageTotal;
        total = pageTotal;
        if (perPage === 0) break;
        start += perPage;
      } while (start < total);
    }
  }
  return {
    get size() {
      return state.size;
    },
    done: () => state.done,
    items: items(),
  };
}
