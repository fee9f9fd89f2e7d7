import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * Every relative link of the documentation (README.md and docs/*.md) leads somewhere: `[text](path)`
 * and `![alt](path)` name a file or folder of the repository, and `[text](path#anchor)` or
 * `[text](#anchor)` a heading of that page, by GitHub's rules for heading ids. Links in code (fenced
 * blocks and code spans) and to other sites are not followed.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCS = join(ROOT, 'docs');

const posix = (path: string) => path.split(sep).join('/');
const shown = (file: string) => posix(relative(ROOT, file));

/** GitHub's id for a heading's text: lower case, punctuation dropped (but - and _), spaces → -. */
function slug(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The text with every fenced code block's lines emptied (line numbers are kept). */
function withoutFences(markdown: string): string {
  let fence: { char: string; length: number } | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const mark = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (!fence) {
        if (mark) fence = { char: mark[1]![0]!, length: mark[1]!.length };
        return mark ? '' : line;
      }
      if (mark && mark[1]![0] === fence.char && mark[1]!.length >= fence.length && line.trim() === mark[1]) fence = undefined;
      return '';
    })
    .join('\n');
}

/** The ids a page's headings get (a repeated heading gets -1, -2…), and explicit `id`/`name` anchors. */
function anchorsOf(markdown: string): Set<string> {
  const prose = withoutFences(markdown);
  const occurrences = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose.split('\n')) {
    const heading = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] ?? '');
    let id = base;
    while (occurrences.has(id)) {
      occurrences.set(base, occurrences.get(base)! + 1);
      id = `${base}-${occurrences.get(base)}`;
    }
    occurrences.set(id, 0);
    anchors.add(id);
  }
  for (const match of prose.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** The links of a page outside code: inline links and images, and reference definitions. */
function linksOf(markdown: string): Link[] {
  // Code spans become x's (a span may hold brackets, and may run over a line break).
  const prose = withoutFences(markdown).replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, 'x'));
  const lineAt = (index: number) => prose.slice(0, index).split('\n').length;
  const links: Link[] = [];
  const inline = /!?\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
  for (const match of prose.matchAll(inline)) {
    links.push({ line: lineAt(match.index!), target: match[2]!.replace(/^<|>$/g, '') });
  }
  for (const match of prose.matchAll(/^ {0,3}\[[^\]]+\]:[ \t]*(<[^>]*>|\S+)/gm)) {
    links.push({ line: lineAt(match.index!), target: match[1]!.replace(/^<|>$/g, '') });
  }
  return links;
}

interface Files {
  exists(file: string): boolean;
  /** The text of a markdown file. */
  read(file: string): string;
}

/** What is wrong with each relative link of a page, as "page:line: message". */
function brokenLinks(page: string, markdown: string, files: Files): string[] {
  const broken: string[] = [];
  for (const { line, target } of linksOf(markdown)) {
    if (/^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith('//')) continue; // another site, mailto:…
    const where = `${shown(page)}:${line}: (${target})`;
    const hash = target.indexOf('#');
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const file = path === '' ? page : path.startsWith('/') ? join(ROOT, path) : resolve(dirname(page), path);
    if (file !== ROOT && !file.startsWith(ROOT + sep)) {
      broken.push(`${where} leads out of the repository`);
      continue;
    }
    if (!files.exists(file)) {
      broken.push(`${where} names ${shown(file)}, which does not exist`);
      continue;
    }
    if (anchor === undefined) continue;
    if (file.endsWith('.md')) {
      if (!anchorsOf(files.read(file)).has(anchor)) broken.push(`${where}: ${shown(file)} has no heading #${anchor}`);
    } else if (!/^L\d+(?:-L\d+)?$/.test(anchor)) {
      broken.push(`${where}: #${anchor} is no line of ${shown(file)}`);
    }
  }
  return broken;
}

const disk: Files = {
  exists: (file) => existsSync(file),
  read: (file) => (statSync(file).isFile() ? readFileSync(file, 'utf8') : ''),
};

/** README.md and every docs/*.md page. */
function documentationPages(): string[] {
  const pages = readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(DOCS, name));
  return [join(ROOT, 'README.md'), ...pages];
}

describe('links in the documentation', () => {
  it("gives headings GitHub's ids", () => {
    assert.equal(slug('The API at a glance'), 'the-api-at-a-glance');
    assert.equal(slug('`POST /v1/responses`'), 'post-v1responses');
    assert.equal(slug('Sandbox (test keys)'), 'sandbox-test-keys');
    assert.equal(slug('Animations: timing, frames and svg_score'), 'animations-timing-frames-and-svg_score');
    assert.equal(slug('The built-in animator (`inkwell-motion`)'), 'the-built-in-animator-inkwell-motion');
    assert.equal(slug('"draw the outline, then pulse the heart"'), 'draw-the-outline-then-pulse-the-heart');
    assert.equal(slug('Single node — or replicas'), 'single-node--or-replicas');
    assert.deepEqual([...anchorsOf('# A\n\n## Notes\n\n## Notes\n\n```\n# not a heading\n```\n')], ['a', 'notes', 'notes-1']);
  });

  it('finds a missing file, a missing heading and a link out of the repository, and skips code and other sites', () => {
    const page = join(DOCS, 'page.md');
    const other = join(DOCS, 'other.md');
    const pages = new Map([
      [page, ''],
      [other, '# Other\n\n## Its part\n'],
    ]);
    const files: Files = { exists: (file) => pages.has(file), read: (file) => pages.get(file) ?? '' };
    const text = [
      '# Page',
      '',
      'Good: [other](other.md), [its part](other.md#its-part), [here](#page), [a site](https://example.com/x.md).',
      'Bad: [gone](gone.md), [no part](other.md#no-part), [no heading](#nowhere),',
      '[out](../../outside.md), ![picture](pictures/none.png).',
      '',
      '```md',
      '[in a fence](fenced.md)',
      '```',
      '',
      'In code: `[mock:x](spanned.md)`.',
    ].join('\n');
    pages.set(page, text);
    assert.deepEqual(brokenLinks(page, text, files), [
      'docs/page.md:4: (gone.md) names docs/gone.md, which does not exist',
      'docs/page.md:4: (other.md#no-part): docs/other.md has no heading #no-part',
      'docs/page.md:4: (#nowhere): docs/page.md has no heading #nowhere',
      'docs/page.md:5: (../../outside.md) leads out of the repository',
      'docs/page.md:5: (pictures/none.png) names docs/pictures/none.png, which does not exist',
    ]);
  });

  it('leads every relative link of README.md and docs/*.md to an existing file and heading', () => {
    const pages = documentationPages();
    let count = 0;
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(page, 'utf8');
      count += linksOf(text).length;
      broken.push(...brokenLinks(page, text, disk));
    }
    assert.ok(count > 20, `only ${count} links found in ${pages.length} pages`);
    assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
  });
});
