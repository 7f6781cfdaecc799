import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { bannerFields, prettyBanner, VERSION, withoutSecrets } from '../../src/http/banner.js';
import { PassThrough } from 'node:stream';
import Fastify from 'fastify';
import { loggerOptions, logFormatOf, redactUrl, RequestLog } from '../../src/http/logging.js';
import { REPO_ROOT } from '../helpers/cli.js';

// The pieces of the start banner and the log format; test/server/first-run-process.test.ts reads
// them from a real server's output.

describe('the log format', () => {
  it('is readable on a terminal and JSON elsewhere, unless LOG_FORMAT says which', () => {
    assert.equal(logFormatOf(loadConfig({}), true), 'pretty');
    assert.equal(logFormatOf(loadConfig({}), false), 'json');
    assert.equal(logFormatOf(loadConfig({ LOG_FORMAT: 'json' }), true), 'json');
    assert.equal(logFormatOf(loadConfig({ LOG_FORMAT: 'pretty' }), false), 'pretty');
    assert.equal(logFormatOf(loadConfig({ LOG_FORMAT: ' ' }), false), 'json');
  });

  it('refuses any other LOG_FORMAT with a clear message', () => {
    assert.throws(
      () => loadConfig({ LOG_FORMAT: 'xml' }),
      (e) => e instanceof ConfigError && e.message === 'LOG_FORMAT must be json or pretty, got "xml"',
    );
    assert.throws(() => loadConfig({ LOG_FORMAT: 'JSON' }), ConfigError);
  });
});

describe('request URLs in the log', () => {
  it('hide the token of invitation and set-up links, also inside ?next=', () => {
    const token = 'Xq3_vB-9aZk0LmN8pQr5sT7uVw1xY2z4AbCdEfGhIjK';
    assert.equal(redactUrl(`/console/invite/${token}`), '/console/invite/[redacted]');
    assert.equal(redactUrl(`/console/setup/${token}?a=1`), '/console/setup/[redacted]?a=1');
    assert.equal(
      redactUrl(`/console/sign-in?next=%2Fconsole%2Finvite%2F${token}`),
      '/console/sign-in?next=%2Fconsole%2Finvite%2F[redacted]',
    );
    assert.equal(
      redactUrl(`/console/sign-in?next=%2fconsole%2finvite%2f${token}&x=1`),
      '/console/sign-in?next=%2fconsole%2finvite%2f[redacted]&x=1',
    );
    assert.equal(redactUrl('/console/o/acme/today'), '/console/o/acme/today');
    assert.equal(redactUrl('/api/v1/external/products?invite=1'), '/api/v1/external/products?invite=1');
  });
});

describe('the request log', () => {
  async function linesOf(level: string, url: string): Promise<Array<Record<string, unknown>>> {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk) => {
      text += chunk;
    });
    const app = Fastify({ logger: loggerOptions({ logLevel: level, logFormat: 'json' }, stream), logController: new RequestLog() });
    app.get('/*', async () => ({ ok: true }));
    await app.inject({ url, headers: { 'x-cra-api-key': 'cra_live_secret' } });
    await app.close();
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  }

  it('has one line per request at info: method, redacted URL, status and time', async () => {
    const lines = await linesOf('info', '/console/invite/Xq3_vB-9aZk0LmN8pQr5sT7uVw1xY2z4AbCdEfGhIjK');
    assert.equal(lines.length, 1, JSON.stringify(lines));
    const line = lines[0] as { msg: string; req: { method: string; url: string }; res: { statusCode: number }; responseTime: unknown };
    assert.equal(line.msg, 'request completed');
    assert.deepEqual({ method: line.req.method, url: line.req.url }, { method: 'GET', url: '/console/invite/[redacted]' });
    assert.equal(line.res.statusCode, 200);
    assert.equal(typeof line.responseTime, 'number');
    assert.equal(JSON.stringify(lines).includes('cra_live_secret'), false);
  });

  it('adds the line of each arrival at debug', async () => {
    const lines = await linesOf('debug', '/api/v1/external/products');
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['incoming request', 'request completed'],
    );
  });
});

describe('the start banner', () => {
  it('names a database or Redis without its password or query string', () => {
    assert.equal(
      withoutSecrets('postgres://cra:s3cret@db.internal:5432/cra?sslpassword=x&sslmode=require'),
      'postgres://cra@db.internal:5432/cra',
    );
    assert.equal(withoutSecrets('postgresql://:only-a-password@db/cra'), 'postgresql://db/cra');
    assert.equal(withoutSecrets('redis://:pw@redis:6379/0'), 'redis://redis:6379/0');
    assert.equal(withoutSecrets('sqlite:/srv/cra/data/cra.db'), 'sqlite:/srv/cra/data/cra.db');
    assert.equal(withoutSecrets('postgres://user:pass@[not a url'), 'postgres://…');
  });

  it('holds where everything answers, the stores, the version and the set-up link while pending', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://cra:s3cret@db:5432/cra', REDIS_URL: 'redis://:pw@redis:6379' });
    const fields = bannerFields(config, 'https://cra.example.com', 'https://cra.example.com/console/setup/abc');
    assert.deepEqual(fields, {
      api: 'https://cra.example.com/api/v1/external',
      swagger: 'https://cra.example.com/swagger',
      console: 'https://cra.example.com/console',
      database: 'postgres://cra@db:5432/cra',
      rate_limit: 'redis://redis:6379',
      version: JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')).version,
      setup_url: 'https://cra.example.com/console/setup/abc',
    });
    assert.equal(fields.version, VERSION);
    assert.equal('setup_url' in bannerFields(config, 'http://x', null), false, 'no set-up line once set up');
    const block = prettyBanner(fields);
    assert.match(block, /^CRA compliance API \S+ is ready\n {2}API {9}https:\/\/cra\.example\.com\/api\/v1\/external\n/);
    assert.match(block, /\n {2}Rate limit {2}Redis redis:\/\/redis:6379\n/);
    assert.match(block, /\n {4}https:\/\/cra\.example\.com\/console\/setup\/abc\n/);
    assert.doesNotMatch(block, /s3cret|pw@/);
    assert.doesNotMatch(prettyBanner(bannerFields(loadConfig({}), 'http://localhost:8080', null)), /First run/);
  });
});
