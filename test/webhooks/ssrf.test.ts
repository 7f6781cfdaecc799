import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import { isNonPublicAddress, resolveTarget, systemLookup, type Lookup } from '../../src/webhooks/ssrf.js';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { postIncident } from '../helpers/incidents.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { webhookParts } from '../helpers/webhooks.js';

// Names resolved by an injected lookup (no /etc/hosts edits): each maps to the addresses given.
const DNS: Record<string, string[]> = {
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'loopback.example': ['127.0.0.1'],
  'private10.example': ['10.1.2.3'],
  'mixed.example': ['93.184.216.34', '192.168.1.20'],
  'metadata.example': ['169.254.169.254'],
  'aws6.example': ['fd00:ec2::254'],
  'mapped.example': ['::ffff:10.0.0.1'],
  'cgnat.example': ['100.64.0.1'],
  'v6local.example': ['fe80::1'],
  'sixtofour.example': ['2002:a00:1::1'],
  'teredo.example': ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
};
const lookup: Lookup = async (host) => {
  const addresses = DNS[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const strict = { allowPrivate: false, lookup };

const REFUSED: Array<[string, RegExp]> = [
  ['http://public.example/hook', /must use https/],
  ['ftp://public.example/hook', /must use https/],
  ['not a url', /not an absolute URL/],
  ['https://user:pw@public.example/hook', /user name or password/],
  ['https://127.0.0.1/hook', /127\.0\.0\.1, a loopback, private/],
  ['https://127.1.2.3/hook', /127\.1\.2\.3/],
  ['https://2130706433/hook', /127\.0\.0\.1/],
  ['https://0x7f.1/hook', /127\.0\.0\.1/],
  ['https://0.0.0.0/hook', /0\.0\.0\.0/],
  ['https://10.0.0.5/hook', /10\.0\.0\.5/],
  ['https://172.16.9.9/hook', /172\.16\.9\.9/],
  ['https://192.168.0.1/hook', /192\.168\.0\.1/],
  ['https://100.100.1.1/hook', /100\.100\.1\.1/],
  ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
  ['https://[::1]/hook', /::1/],
  ['https://[::]/hook', /::/],
  ['https://[fd00:ec2::254]/hook', /fd00:ec2::254/],
  ['https://[fe80::1]/hook', /fe80::1/],
  ['https://[::ffff:127.0.0.1]/hook', /::ffff:7f00:1/],
  ['https://[::ffff:a9fe:a9fe]/hook', /::ffff:a9fe:a9fe/],
  ['https://[64:ff9b::a00:1]/hook', /64:ff9b::a00:1/],
  ['https://loopback.example/hook', /"loopback\.example" resolves to 127\.0\.0\.1/],
  ['https://private10.example/hook', /10\.1\.2\.3/],
  ['https://mixed.example/hook', /192\.168\.1\.20/],
  ['https://metadata.example/hook', /169\.254\.169\.254/],
  ['https://aws6.example/hook', /fd00:ec2::254/],
  ['https://mapped.example/hook', /::ffff:10\.0\.0\.1/],
  ['https://cgnat.example/hook', /100\.64\.0\.1/],
  ['https://v6local.example/hook', /fe80::1/],
  ['https://nowhere.example/hook', /does not resolve \(ENOTFOUND\)/],
  // Tunnels and translations that carry an IPv4 address (a private one, or any) inside IPv6.
  ['https://[2002:7f00:1::1]/hook', /2002:7f00:1::1/], // 6to4 of 127.0.0.1
  ['https://[2002:c0a8:101::5]/hook', /2002:c0a8:101::5/], // 6to4 of 192.168.1.1
  ['https://[2002:808:808::1]/hook', /2002:808:808::1/], // 6to4 at all: deprecated, reached through relays
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', /2001:0:4136:e378:8000:63bf:3fff:fdd2/], // Teredo
  ['https://[::ffff:0:127.0.0.1]/hook', /::ffff:0:7f00:1/], // IPv4-translated (RFC 2765)
  ['https://[::ffff:0:a9fe:a9fe]/hook', /::ffff:0:a9fe:a9fe/],
  ['https://192.88.99.1/hook', /192\.88\.99\.1/], // the 6to4 relay anycast
  ['https://sixtofour.example/hook', /2002:a00:1::1/],
  ['https://teredo.example/hook', /2001:0:4136/],
];

describe('SSRF checks on endpoint URLs', () => {
  for (const [url, message] of REFUSED) {
    it(`refuses ${url}`, async () => {
      await assert.rejects(
        resolveTarget(url, strict),
        (e: unknown) => e instanceof AppError && e.code === 'validation_failed' && message.test(e.message),
      );
    });
  }

  it('admits https to public addresses, IPv4 and IPv6, and keeps the checked addresses for the connect', async () => {
    const target = await resolveTarget('https://public.example/hooks?x=1', strict);
    assert.deepEqual(
      target.addresses.map((a) => a.address),
      DNS['public.example'],
    );
    assert.equal((await resolveTarget('https://[2606:2800:220:1:248:1893:25c8:1946]/h', strict)).addresses[0]!.family, 6);
    assert.equal(isNonPublicAddress('::ffff:8.8.8.8'), false);
    assert.equal(isNonPublicAddress('8.8.8.8'), false);
    // Beside the tunnel ranges, their neighbours stay public.
    assert.equal(isNonPublicAddress('2001:4860:4860::8888'), false);
    assert.equal(isNonPublicAddress('2003::1'), false);
    assert.equal(isNonPublicAddress('192.88.98.1'), false);
  });

  it('resolves localhost through the system resolver and refuses it', async () => {
    await assert.rejects(
      resolveTarget('https://localhost:8443/hook', { allowPrivate: false, lookup: systemLookup }),
      /"localhost" resolves to (127\.0\.0\.1|::1)/,
    );
  });

  it('reads WEBHOOK_ALLOW_PRIVATE as on or off, off when unset, and refuses any other value', () => {
    const allowPrivate = (value?: string) => loadConfig(value === undefined ? {} : { WEBHOOK_ALLOW_PRIVATE: value }).webhooks.allowPrivate;
    assert.equal(allowPrivate(), false);
    assert.equal(allowPrivate(''), false);
    assert.equal(allowPrivate('true'), true);
    assert.equal(allowPrivate(' 1 '), true);
    assert.equal(allowPrivate('false'), false);
    assert.equal(allowPrivate('0'), false);
    for (const value of ['yes', 'TRUE', 'on']) {
      assert.throws(() => allowPrivate(value), new RegExp(`WEBHOOK_ALLOW_PRIVATE must be true or false, got "${value}"`));
    }
  });

  it('with WEBHOOK_ALLOW_PRIVATE admits private addresses and plain http to them, never http to a public one', async () => {
    const open = { allowPrivate: true, lookup };
    assert.equal((await resolveTarget('http://loopback.example:9/h', open)).addresses[0]!.address, '127.0.0.1');
    assert.equal((await resolveTarget('https://[fd00:ec2::254]/h', open)).addresses[0]!.family, 6);
    await assert.rejects(resolveTarget('http://public.example/h', open), /must use https/);
    await assert.rejects(resolveTarget('http://mixed.example/h', open), /must use https/);
  });
});

describe('SSRF checks at add time and at every delivery', () => {
  let h: Harness;
  let acme: Tenant;
  let receiver: Receiver;
  const teardown = suiteTeardown();
  // A name whose DNS answer changes after the endpoint was added (rebinding).
  let rebinding = ['93.184.216.34'];

  before(async () => {
    h = await buildHarness(teardown);
    h.clock.current = new Date();
    acme = await h.tenant('acme', ['incidents:write'], { intakeMode: 'case' });
    receiver = await startReceiver();
    teardown.after(() => receiver.close());
  });

  it('refuses to add an endpoint on a private address, and adds nothing', async () => {
    const parts = webhookParts(h, { WEBHOOK_ALLOW_PRIVATE: 'false' }, lookup);
    await assert.rejects(parts.webhooks.addEndpoint({ org: 'acme', url: receiver.url }), /must use https/);
    await assert.rejects(
      parts.webhooks.addEndpoint({ org: 'acme', url: `https://127.0.0.1:${receiver.port}/h` }),
      /127\.0\.0\.1, a loopback/,
    );
    await assert.rejects(parts.webhooks.addEndpoint({ org: 'acme', url: 'https://metadata.example/x' }), /169\.254\.169\.254/);
    assert.deepEqual(await parts.webhooks.listEndpoints('acme'), []);
  });

  it('refuses at delivery when the name has come to resolve to a private address, and connects nowhere', async () => {
    const rebinder: Lookup = async () => rebinding.map((address) => ({ address, family: 4 }));
    const parts = webhookParts(h, { WEBHOOK_ALLOW_PRIVATE: 'false' }, rebinder);
    await parts.webhooks.addEndpoint({ org: 'acme', url: `https://hooks.rebind.example:${receiver.port}/h` });
    rebinding = ['127.0.0.1'];
    await postIncident(h, acme.key, { description: 'x' });
    assert.equal(await parts.dispatcher.runOnce(), 1);
    const [delivery] = await parts.webhooks.listDeliveries({ org: 'acme' });
    assert.equal(delivery!.status, 'pending');
    assert.match(delivery!.last_error!, /resolves to 127\.0\.0\.1, a loopback, private/);
    assert.equal(receiver.received.length, 0);
  });
});
