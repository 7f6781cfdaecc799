import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/cli.js';

// The README is the front door and the depth lives in docs/, one file per subject. This keeps it
// that way: the README stays short, its map of docs/ names every file there and nothing else, and
// every relative link of README.md and docs/*.md reaches an existing file (and heading).

const README_MAX_LINES = 250;

const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

/** The text outside fenced blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '').replace(/(`+)[\s\S]*?\1/g, '');
}

/** Targets of inline links and images: [text](target) and ![alt](target "title"). */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

/** GitHub's anchors for the headings of a Markdown file (outside fenced blocks). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');
  for (const [, text] of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = text!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    result.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return result;
}

describe('README and docs/', () => {
  it(`the README is a front door of at most ${README_MAX_LINES} lines`, () => {
    const lines = read('README.md').replace(/\n$/, '').split('\n').length;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move the depth into docs/`);
  });

  it('the README links every docs/*.md, and every docs/*.md it links exists', () => {
    const linked = new Set(
      linkTargets(read('README.md'))
        .map((target) => target.split('#')[0]!)
        .filter((path) => /^docs\/[^/]+\.md$/.test(path)),
    );
    for (const path of linked) assert.ok(existsSync(join(REPO_ROOT, path)), `README.md links ${path}, which does not exist`);
    const unmapped = DOCUMENTS.filter((file) => file !== 'README.md' && !linked.has(file));
    assert.deepEqual(unmapped, [], 'every docs/*.md has its line in the README map');
  });

  it('every relative link of README.md and docs/*.md reaches an existing file and heading', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of DOCUMENTS) {
      for (const target of linkTargets(read(file))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
        checked++;
        const [path, fragment] = target.split('#') as [string, string | undefined];
        const resolved = path === '' ? join(REPO_ROOT, file) : join(REPO_ROOT, dirname(file), decodeURIComponent(path));
        const name = relative(REPO_ROOT, resolved);
        if (name.startsWith('..') || !existsSync(resolved)) {
          broken.push(`${file}: ${target} (no file ${name})`);
          continue;
        }
        if (fragment !== undefined && resolved.endsWith('.md') && statSync(resolved).isFile()) {
          if (!anchors(readFileSync(resolved, 'utf8')).has(fragment))
            broken.push(`${file}: ${target} (no heading #${fragment} in ${name})`);
        }
      }
    }
    assert.ok(checked > 0, 'links were found');
    assert.deepEqual(broken, []);
  });
});
