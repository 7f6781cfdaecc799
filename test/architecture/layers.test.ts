import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

// The layers of docs/architecture.md, read off the imports of src/: which way an import may
// point, and that none closes a circle. A new file finds its layer by where it lives.

/** Layers, lowest first: a file may import its own layer or a lower one, never a higher one. */
export const LAYERS = ['base', 'db', 'feature', 'root', 'door', 'entry'] as const;
export type Layer = (typeof LAYERS)[number];

/**
 * Feature sub-folders that split by layer (CONVENTIONS.md), lowest first; the folders of one
 * layer may import each other. A file at the feature's root (its schemas) is below them all.
 */
export const SUB_LAYERS: Record<string, string[][]> = {
  sbom: [['conformance'], ['parse'], ['store'], ['portfolio'], ['http']],
  vulns: [['match'], ['feeds', 'vex'], ['store'], ['engine'], ['services']],
};

export function layerOf(file: string): Layer {
  const parts = file.split('/');
  const [top] = parts;
  if (top === 'shared' || file === 'errors.ts' || file === 'config.ts') return 'base';
  if (top === 'db') return 'db';
  if (file === 'server.ts' || file === 'cli/main.ts') return 'entry';
  if (file === 'services.ts' || file === 'start-up.ts') return 'root';
  if (file === 'app.ts' || top === 'http' || top === 'console' || top === 'cli') return 'door';
  if (file.endsWith('.routes.ts') || (parts.length > 2 && parts[1] === 'http')) return 'door';
  return 'feature';
}

/**
 * The doors handed the composition root's services whole: the HTTP app, which passes each
 * plugin what it uses, and cra-admin's commands. Every other door (the console, the API's
 * routes) declares the services it calls, so that none reaches back up to the root.
 */
const HANDED_THE_ROOT = (file: string) => file === 'app.ts' || file.startsWith('cli/');

/** The feature folder a feature file belongs to (`sbom` for sbom/parse/read-sbom.ts). */
function featureOf(file: string): string | null {
  return layerOf(file) === 'feature' || file.endsWith('.routes.ts') || file.split('/')[1] === 'http' ? file.split('/')[0]! : null;
}

export interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Relative imports of every TypeScript file under `root`, as paths relative to it. */
export function importsOf(root: string): { files: string[]; imports: Import[] } {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : name.endsWith('.ts') ? [path] : [];
    });
  const files = walk(root).map((f) => relative(root, f));
  const imports: Import[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const pattern = /^\s*(import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?'(\.[^']+)'|import\('(\.[^']+)'\)/gm;
    for (const m of text.matchAll(pattern)) {
      const spec = m[3] ?? m[4]!;
      const to = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
      if (!to.endsWith('.ts') || to.startsWith('..')) continue;
      imports.push({ from: file, to, typeOnly: m[2] !== undefined });
    }
  }
  return { files, imports };
}

/** Every rule an import breaks, in words. */
export function violations(files: string[], imports: Import[]): string[] {
  const found: string[] = [];
  const known = new Set(files);
  for (const { from, to, typeOnly } of imports) {
    if (!known.has(to)) {
      found.push(`${from} imports ${to}, which does not exist`);
      continue;
    }
    const [a, b] = [layerOf(from), layerOf(to)];
    if (LAYERS.indexOf(b) > LAYERS.indexOf(a)) found.push(`${from} (${a}) imports ${to} (${b}): up a layer`);
    if (a === 'door' && to.endsWith('.repo.ts')) found.push(`${from} (door) imports the repository ${to}: doors ask services`);
    if (a === 'door' && b === 'root' && !HANDED_THE_ROOT(from))
      found.push(`${from} (door) imports the root ${to}: a door names the services it uses; app.ts hands them over`);
    if (a === 'door' && b === 'db' && !typeOnly && to !== 'db/errors.ts' && to !== 'db/index.ts')
      found.push(`${from} (door) imports ${to}: doors never query the database`);
    if (from.endsWith('.repo.ts') && to.endsWith('.service.ts'))
      found.push(`${from} imports the service ${to}: repositories are below services`);
    const feature = featureOf(from);
    const order = feature ? SUB_LAYERS[feature] : undefined;
    if (order && featureOf(to) === feature) {
      const rank = (f: string) => (f.split('/').length > 2 ? order.findIndex((layer) => layer.includes(f.split('/')[1]!)) : -1);
      const named = order.map((layer) => layer.join(', ')).join(' → ');
      if (rank(to) > rank(from)) found.push(`${from} imports ${to}: up a layer inside ${feature}/ (${named})`);
    }
  }
  for (const file of files) {
    const [feature, folder] = file.split('/');
    const order = SUB_LAYERS[feature!];
    if (order && file.split('/').length > 2 && !order.some((layer) => layer.includes(folder!)))
      found.push(`${file} is in ${feature}/${folder}/, which is none of ${feature}/'s layers`);
  }
  for (const circle of circles(
    files,
    imports.map(({ from, to }) => [from, to]),
  ))
    found.push(`files import each other in a circle: ${circle.join(' → ')}`);
  const folderEdges = imports.flatMap(({ from, to }) => {
    const [a, b] = [featureOf(from), featureOf(to)];
    return a && b && a !== b && layerOf(from) === 'feature' ? [[a, b] as [string, string]] : [];
  });
  const folders = [...new Set(files.map(featureOf).filter((f): f is string => f !== null))];
  for (const circle of circles(folders, folderEdges)) found.push(`feature folders depend on each other in a circle: ${circle.join(' → ')}`);
  return found;
}

/** The strongly connected components with more than one node (Tarjan), each as a closed walk. */
export function circles(nodes: string[], edges: Array<[string, string]>): string[][] {
  const next = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const [a, b] of edges) if (next.has(a) && next.has(b)) next.get(a)!.push(b);
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push([...component.reverse(), component[0]!]);
    }
  };
  for (const n of nodes) if (!indexOf.has(n)) visit(n);
  return found;
}

describe('layers: which way imports point', () => {
  it('src/ breaks no rule of docs/architecture.md', () => {
    const { files, imports } = importsOf(SRC);
    assert.ok(files.length > 100 && imports.length > 500, `read ${files.length} files, ${imports.length} imports`);
    assert.deepEqual(violations(files, imports), []);
  });

  it('names each layer as the architecture says', () => {
    const cases: Array<[string, Layer]> = [
      ['shared/time.ts', 'base'],
      ['errors.ts', 'base'],
      ['db/sqlite.ts', 'db'],
      ['cases/cases.service.ts', 'feature'],
      ['sbom/parse/read-sbom.ts', 'feature'],
      ['services.ts', 'root'],
      ['incidents/create-incident.routes.ts', 'door'],
      ['sbom/http/ingest-sbom.routes.ts', 'door'],
      ['console/cases.page.ts', 'door'],
      ['cli/run.ts', 'door'],
      ['server.ts', 'entry'],
    ];
    for (const [file, layer] of cases) assert.equal(layerOf(file), layer, file);
  });

  it('finds an import up a layer, a repository asked by a door, and circles of files and of folders', () => {
    const files = [
      'shared/a.ts',
      'db/b.ts',
      'cases/cases.service.ts',
      'cases/cases.repo.ts',
      'incidents/x.ts',
      'console/page.ts',
      'sbom/parse/p.ts',
      'sbom/store/s.ts',
      'vulns/vulns.schemas.ts',
      'vulns/match/m.ts',
      'vulns/feeds/f.ts',
      'vulns/vex/v.ts',
      'vulns/store/s.repo.ts',
      'vulns/engine/e.ts',
      'vulns/services/x.service.ts',
      'vulns/extra/z.ts',
      'services.ts',
      'app.ts',
      'cli/context.ts',
    ];
    const imports: Import[] = [
      { from: 'shared/a.ts', to: 'db/b.ts', typeOnly: false },
      { from: 'console/page.ts', to: 'cases/cases.repo.ts', typeOnly: false },
      { from: 'cases/cases.repo.ts', to: 'cases/cases.service.ts', typeOnly: true },
      { from: 'cases/cases.service.ts', to: 'cases/cases.repo.ts', typeOnly: false },
      { from: 'cases/cases.service.ts', to: 'incidents/x.ts', typeOnly: false },
      { from: 'incidents/x.ts', to: 'cases/cases.repo.ts', typeOnly: false },
      { from: 'sbom/parse/p.ts', to: 'sbom/store/s.ts', typeOnly: false },
      { from: 'console/page.ts', to: 'db/b.ts', typeOnly: false },
      { from: 'vulns/store/s.repo.ts', to: 'vulns/services/x.service.ts', typeOnly: true },
      { from: 'vulns/match/m.ts', to: 'vulns/engine/e.ts', typeOnly: false },
      { from: 'vulns/vulns.schemas.ts', to: 'vulns/store/s.repo.ts', typeOnly: false },
      { from: 'vulns/feeds/f.ts', to: 'vulns/vex/v.ts', typeOnly: false },
      { from: 'vulns/vex/v.ts', to: 'vulns/match/m.ts', typeOnly: false },
      { from: 'vulns/services/x.service.ts', to: 'vulns/vulns.schemas.ts', typeOnly: false },
      { from: 'console/page.ts', to: 'services.ts', typeOnly: true },
    ];
    const found = violations(files, imports);
    assert.ok(found.some((v) => v.startsWith('shared/a.ts (base) imports db/b.ts (db): up a layer')));
    assert.ok(found.some((v) => v.includes('imports the repository cases/cases.repo.ts')));
    assert.ok(found.some((v) => v.includes('console/page.ts (door) imports db/b.ts')));
    assert.ok(found.some((v) => v.startsWith('console/page.ts (door) imports the root services.ts')));
    assert.ok(found.some((v) => v.startsWith('cases/cases.repo.ts imports the service')));
    assert.ok(found.some((v) => v.includes('up a layer inside sbom/')));
    assert.ok(found.some((v) => v.startsWith('vulns/store/s.repo.ts imports vulns/services/x.service.ts: up a layer inside vulns/')));
    assert.ok(found.some((v) => v.startsWith('vulns/match/m.ts imports vulns/engine/e.ts: up a layer inside vulns/')));
    assert.ok(found.some((v) => v.startsWith('vulns/vulns.schemas.ts imports vulns/store/s.repo.ts: up a layer inside vulns/')));
    assert.ok(found.some((v) => v === "vulns/extra/z.ts is in vulns/extra/, which is none of vulns/'s layers"));
    assert.ok(!found.some((v) => v.startsWith('vulns/feeds/f.ts') || v.startsWith('vulns/vex/v.ts')), 'feeds and vex are one layer');
    assert.ok(found.some((v) => v.startsWith('files import each other in a circle')));
    assert.ok(found.some((v) => v.startsWith('feature folders depend on each other in a circle: ')));
    const layered = files.filter((f) => f !== 'vulns/extra/z.ts');
    assert.deepEqual(violations(layered, [{ from: 'db/b.ts', to: 'shared/a.ts', typeOnly: false }]), []);
    assert.deepEqual(
      violations(layered, [
        { from: 'app.ts', to: 'services.ts', typeOnly: true },
        { from: 'cli/context.ts', to: 'services.ts', typeOnly: true },
      ]),
      [],
      'app.ts and cra-admin are handed the services whole',
    );
  });
});
