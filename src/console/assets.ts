import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { ASSETS_DIR } from './paths.js';

// Static files, read once and served from memory: htmx from its npm package (no CDN), our
// stylesheet and the small progressive-enhancement script. CSP allows only these ('self').

const require = createRequire(import.meta.url);
const ASSETS: Record<string, { file: string; type: string }> = {
  'htmx.min.js': { file: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
  'console.css': { file: `${ASSETS_DIR}/console.css`, type: 'text/css; charset=utf-8' },
  'console.js': { file: `${ASSETS_DIR}/console.js`, type: 'text/javascript; charset=utf-8' },
};

export function registerAssets(scope: FastifyInstance): void {
  for (const [name, asset] of Object.entries(ASSETS)) {
    const body = readFileSync(asset.file);
    scope.get(`/assets/${name}`, { config: { permission: 'public' } }, (_request, reply) =>
      reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(body),
    );
  }
}
