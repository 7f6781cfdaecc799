// `npm run build`: compiles src/ into dist/ with tsc (tsconfig.build.json), and only when a
// source changed since the last build.
//
// Why not plain `tsc` into dist/: npm runs `prepare` (this build) again whenever the package is
// installed as a dependency, and the first `npx cra-admin` on a machine does exactly that: it
// installs the project into npx's cache. A rebuild in place rewrites dist/ file by file while
// `npm start`, other `cra-admin` runs or tests load it, and a process that starts mid-write reads
// half a module ("does not provide an export named …"). So the build skips when dist/ is current,
// and otherwise compiles into a sibling directory and swaps it in with two renames.
//
//   node scripts/build.mjs           build when src/, tsconfig*.json or this script changed
//   node scripts/build.mjs --force   build whatever the stamp says
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const STAMP = join('dist', '.built');
const OUTPUTS = [join('dist', 'server.js'), join('dist', 'cli', 'main.js')];

function* sourcesOf(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourcesOf(path);
    else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) yield path;
  }
}

function newestSource() {
  const files = [...sourcesOf('src'), 'tsconfig.json', 'tsconfig.build.json', fileURLToPath(import.meta.url)];
  return Math.max(...files.map((f) => statSync(f).mtimeMs));
}

function upToDate() {
  if (!existsSync(STAMP) || !OUTPUTS.every((f) => existsSync(f))) return false;
  return statSync(STAMP).mtimeMs >= newestSource();
}

if (!process.argv.includes('--force') && upToDate()) {
  console.log('dist/ is up to date with src/ (node scripts/build.mjs --force builds anyway)');
  process.exit(0);
}

const started = new Date();
const next = `dist.next-${process.pid}`;
const old = `dist.old-${process.pid}`;
rmSync(next, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', next], {
  stdio: 'inherit',
});
if (tsc.status !== 0) {
  rmSync(next, { recursive: true, force: true });
  process.exit(tsc.status ?? 1);
}
chmodSync(join(next, 'cli', 'main.js'), 0o755);
// The stamp carries the time the build started: a source saved during the build is newer.
writeFileSync(join(next, '.built'), '');
utimesSync(join(next, '.built'), started, started);
// The swap: dist/ is missing only between two renames, never half written. Another build that
// swaps at the same moment makes a rename fail: then try again.
for (let attempt = 1; ; attempt++) {
  try {
    if (existsSync('dist')) renameSync('dist', old);
    renameSync(next, 'dist');
    break;
  } catch (error) {
    if (attempt === 5) throw error;
  }
}
rmSync(old, { recursive: true, force: true });
