// GET /api/v1/external/products in a loop on a few connections, in its own process so that the
// uploading process's work (building and sending a 36 MiB body) cannot delay the reads it times.
// Started by sbom-scale.mjs; stops at the line "stop" on stdin and prints the latencies (ms) as JSON.
import { performance } from 'node:perf_hooks';

const [url, key, connections = '4'] = process.argv.slice(2);
const latencies = [];
let done = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  if (text.includes('stop')) done = true;
});
const loop = async () => {
  while (!done) {
    const started = performance.now();
    const res = await fetch(`${url}/api/v1/external/products`, { headers: { 'x-cra-api-key': key } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET products: ${res.status}`);
    latencies.push(performance.now() - started);
  }
};
process.stdout.write('ready\n');
await Promise.all(Array.from({ length: Number(connections) }, loop));
process.stdout.write(`${JSON.stringify(latencies)}\n`);
process.stdin.destroy();
