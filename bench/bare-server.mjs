// The baseline: a bare Fastify route returning a small JSON object, with the same logger level
// as the service. Whatever the service reaches is measured against this.
import Fastify from 'fastify';

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'warn' } });
app.get('/', async () => ({ status: 'ok', service: 'bare', version: 1 }));
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
