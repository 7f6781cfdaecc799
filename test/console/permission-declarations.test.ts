import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { publicRoutesOnly, registerPermissions } from '../../src/console/permissions.js';

// A route that does not say who may reach it cannot be registered: not in the console (any
// scope below it, a page's own plugin included), not among the public disclosure pages.

/** Builds an app with `plugin` at `prefix`; rejects with what its registration threw. */
async function build(plugin: (scope: FastifyInstance) => Promise<void>, prefix: string): Promise<void> {
  const app = Fastify();
  try {
    await app.register(plugin, { prefix });
    await app.ready();
  } finally {
    await app.close();
  }
}

/** The console's scope with `routes` in its organisation scope below it. */
const consoleWith = (routes: (org: FastifyInstance) => void | Promise<void>) =>
  build(async (scope) => {
    registerPermissions(scope);
    await scope.register(async (org) => routes(org), { prefix: '/o/:org' });
  }, '/console');

describe('console permissions: declared where each route is registered', () => {
  it('refuses to register a route that declares no permission, GET or POST, in any scope below the console', async () => {
    await assert.rejects(
      consoleWith((org) => void org.post('/reports/new', async () => 'x')),
      /POST \/console\/o\/:org\/reports\/new declares no permission/,
    );
    await assert.rejects(
      consoleWith(async (org) => {
        await org.register(async (page) => void page.get('/later', async () => 'x'));
      }),
      /GET \/console\/o\/:org\/later declares no permission/,
    );
  });

  it('refuses an unknown permission, an organisation page open to anyone, and a permission where no organisation is', async () => {
    await assert.rejects(
      consoleWith((org) => void org.post('/x', { config: { permission: 'everything' as never } }, async () => 'x')),
      /unknown permission "everything"/,
    );
    for (const access of ['public', 'signed-in'] as const)
      await assert.rejects(
        consoleWith((org) => void org.get('/x', { config: { permission: access } }, async () => 'x')),
        new RegExp(`GET /console/o/:org/x is an organisation's page: it needs a permission, not "${access}"`),
      );
    await assert.rejects(
      build(async (scope) => {
        registerPermissions(scope);
        scope.get('/settings', { config: { permission: 'settings' } }, async () => 'x');
      }, '/console'),
      /GET \/console\/settings has no organisation to hold "settings" in/,
    );
  });

  it('registers routes that declare what they need', async () => {
    await consoleWith((org) => {
      org.get('/page', { config: { permission: 'read' } }, async () => 'x');
      org.post('/page', { config: { permission: 'cases' } }, async () => 'x');
    });
  });

  it('the public disclosure pages: each route must be declared public, never more', async () => {
    const pages = (access: 'public' | 'signed-in' | 'settings' | undefined) =>
      build(async (scope) => {
        publicRoutesOnly(scope);
        scope.get('/:slug/new', access ? { config: { permission: access } } : {}, async () => 'x');
      }, '/disclose');
    await pages('public');
    await assert.rejects(pages(undefined), /GET \/disclose\/:slug\/new declares no permission/);
    await assert.rejects(pages('signed-in'), /these pages have no session, so every route is public/);
    await assert.rejects(pages('settings'), /has no organisation to hold "settings" in/);
  });
});
