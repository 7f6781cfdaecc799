import { openDatabase } from '../src/db/index.js';
import { createAuthenticator } from '../src/keys/authenticate.js';
import { createKeyService } from '../src/keys/keys.service.js';
import { createOrgService } from '../src/orgs/orgs.service.js';
import { MemoryRateLimitStore } from '../src/http/rate-limit/memory-store.js';
const database = openDatabase('sqlite:/tmp/prof2/db.sqlite');
const orgs = createOrgService(database);
const key = (await createKeyService(database, orgs).createKey({ org: 'p', name: 'micro' + Date.now(), scopes: ['products:read'] })).secret;
const auth = createAuthenticator(database);
const store = new MemoryRateLimitStore();
async function time(label: string, fn: () => Promise<unknown> | unknown, n = 20000) {
  for (let i = 0; i < 2000; i++) await fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(label, (((performance.now() - t) / n) * 1000).toFixed(1), 'us');
}
await time('authenticate', () => auth(key));
await time('rate limit', () => store.consume('k', 100, 60000));
const { createHash } = await import('node:crypto');
await time('sha256', () => createHash('sha256').update(key).digest('hex'));
await time('uuid', () => crypto.randomUUID());
await database.close(); await store.close();
