import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The layer map as a test. The rooms of src/ (its top folders, and main.ts and app.ts) may import
 * one another only along the edges docs/architecture.md allows, in one fenced block after the line
 * "Allowed imports (read by test/architecture.test.ts):". No file may reach itself through its
 * imports, type-only imports included. And the documentation (README.md and docs/*.md) names only
 * files and folders that exist.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
/** The page that holds the allowed imports. */
const ARCHITECTURE = join(DOCS, 'architecture.md');
const SOURCE_FILE = /\.(?:ts|mts|mjs|js)$/;
const BLOCK_INTRO = 'Allowed imports (read by test/architecture.test.ts):';

const posix = (path: string) => path.split(sep).join('/');
const shown = (file: string) => posix(relative(ROOT, file));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
    })
    .sort();
}

/** The room of a file: its top folder under src/, or the file's own name for main.ts and app.ts. */
function roomOf(file: string): string {
  const parts = posix(relative(SRC, file)).split('/');
  return parts.length === 1 ? parts[0]!.replace(SOURCE_FILE, '') : parts[0]!;
}

interface ImportSite {
  specifier: string;
  line: number;
  /** A dynamic import() whose specifier is not a plain string: it cannot be checked. */
  computed?: boolean;
}

/**
 * Every module a source text refers to: static imports and `import type`, `export … from`,
 * `import x = require()`, dynamic `import()` and type-position `import('…').T`.
 */
function importsOf(fileName: string, text: string): ImportSite[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const sites: ImportSite[] = [];
  const add = (node: ts.Node, specifier: string, computed = false) =>
    sites.push({ specifier, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, computed });
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node, node.moduleSpecifier.text);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) add(node, argument.text);
      else add(node, argument ? argument.getText(source) : '', true);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node, node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

/** The file a relative specifier names, or undefined when there is none. */
function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

interface Edge {
  from: string;
  to: string;
  specifier: string;
  line: number;
}

interface Graph {
  files: string[];
  edges: Edge[];
  /** Imports that name no file, or cannot be read (a computed dynamic import). */
  unreadable: string[];
}

function importGraph(): Graph {
  const files = sourceFiles(SRC);
  const edges: Edge[] = [];
  const unreadable: string[] = [];
  for (const file of files) {
    for (const site of importsOf(file, readFileSync(file, 'utf8'))) {
      const where = `${shown(file)}:${site.line}`;
      if (site.computed) {
        unreadable.push(`${where} imports a computed specifier (${site.specifier}); the layer test can only check string specifiers`);
        continue;
      }
      if (!site.specifier.startsWith('.')) continue; // a package or node: builtin
      const to = resolveImport(file, site.specifier);
      if (!to) unreadable.push(`${where} imports '${site.specifier}', which is no file`);
      else if (to.startsWith(SRC + sep)) edges.push({ from: file, to, specifier: site.specifier, line: site.line });
    }
  }
  return { files, edges, unreadable };
}

/** The documented allowed edges (docs/architecture.md): room → the rooms it may import. */
function allowedImports(page: string): Map<string, Set<string>> {
  const where = shown(ARCHITECTURE);
  const lines = page.split('\n');
  const intro = lines.findIndex((line) => line.trim() === BLOCK_INTRO);
  assert.ok(intro >= 0, `${where} has no line "${BLOCK_INTRO}"`);
  const open = lines.findIndex((line, i) => i > intro && line.startsWith('```'));
  const close = lines.findIndex((line, i) => i > open && line.startsWith('```'));
  assert.ok(open > intro && close > open, `${where}: "${BLOCK_INTRO}" is not followed by a fenced block`);
  const allowed = new Map<string, Set<string>>();
  for (const line of lines.slice(open + 1, close)) {
    if (line.trim() === '') continue;
    const match = /^\s*([\w-]+)\s*(?:→|->)\s*(.*)$/.exec(line);
    assert.ok(match, `${where}, allowed imports: "${line}" is not "room → room, room" (or "room → (none)")`);
    const [, room, targets] = match;
    assert.ok(!allowed.has(room!), `${where}, allowed imports: ${room} has two lines`);
    const list = targets!.trim() === '(none)' ? [] : targets!.split(',').map((target) => target.trim()).filter(Boolean);
    allowed.set(room!, new Set(list));
  }
  for (const [room, targets] of allowed) {
    for (const target of targets) {
      assert.ok(allowed.has(target), `${where}, allowed imports: ${room} → ${target}, but ${target} has no line of its own`);
      assert.notEqual(target, room, `${where}, allowed imports: ${room} lists itself`);
    }
  }
  return allowed;
}

/** One cycle through each strongly connected group of files (Tarjan), as the files in order. */
function importCycles(files: string[], edges: Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const edge of edges) next.get(edge.from)!.push(edge.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let counter = 0;
  const connect = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || next.get(file)!.includes(file)) groups.push(group);
  };
  for (const file of files) if (!index.has(file)) connect(file);

  // Within a group every file reaches every other: a shortest way back from its first file.
  return groups.map((group) => {
    const members = new Set(group);
    const start = [...group].sort()[0]!;
    const cameFrom = new Map<string, string>();
    const queue = [start];
    search: while (queue.length > 0) {
      const file = queue.shift()!;
      for (const to of next.get(file)!) {
        if (!members.has(to) || cameFrom.has(to)) continue;
        cameFrom.set(to, file);
        if (to === start) break search;
        queue.push(to);
      }
    }
    const way: string[] = [];
    for (let file = cameFrom.get(start)!; file !== start; file = cameFrom.get(file)!) way.unshift(file);
    return [start, ...way, start];
  });
}

/**
 * Where a source text could make a SafeSvg itself: a value import from svg/safe-svg.ts (its
 * `markSafe`), or a type assertion to SafeSvg (`x as SafeSvg`, `<SafeSvg>x`). Line numbers.
 */
function safeSvgMakers(fileName: string, text: string): number[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /(^|\/)safe-svg\.ts$/.test(node.moduleSpecifier.text)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const valueNamed = bindings && ts.isNamedImports(bindings) ? bindings.elements.some((element) => !element.isTypeOnly) : bindings !== undefined;
      if (clause && !clause.isTypeOnly && (clause.name || valueNamed)) lines.push(line(node));
    } else if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && /\bSafeSvg\b/.test(node.type.getText(source))) {
      lines.push(line(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

describe('the layer map', () => {
  const graph = importGraph();
  const allowed = allowedImports(readFileSync(ARCHITECTURE, 'utf8'));

  it('reads every kind of import: static, type-only, re-export, dynamic and type-position', () => {
    const text = [
      "import { a } from './static.ts';",
      "import type { B } from './type-only.ts';",
      "import './side-effect.ts';",
      "export { c } from './re-export.ts';",
      "export * from './star.ts';",
      "const d = await import('./dynamic.ts');",
      "let e: import('./type-position.ts').E;",
      "import f = require('./require.ts');",
      'const g = await import(name);',
    ].join('\n');
    const sites = importsOf('probe.ts', text);
    assert.deepEqual(
      sites.filter((site) => !site.computed).map((site) => site.specifier),
      ['./static.ts', './type-only.ts', './side-effect.ts', './re-export.ts', './star.ts', './dynamic.ts', './type-position.ts', './require.ts'],
    );
    assert.deepEqual(sites.filter((site) => site.computed).map((site) => site.specifier), ['name']);
    assert.ok(graph.edges.length > 100, `only ${graph.edges.length} imports found under src/`);
  });

  it('finds the file of every relative import under src/', () => {
    assert.deepEqual(graph.unreadable, []);
  });

  it('gives every room under src/ a line in the allowed imports of docs/architecture.md', () => {
    const rooms = [...new Set(graph.files.map(roomOf))].sort();
    const missing = rooms.filter((room) => !allowed.has(room));
    assert.deepEqual(missing, [], `rooms under src/ with no line in the allowed imports of docs/architecture.md: ${missing.join(', ')}`);
  });

  it('imports across rooms only along the allowed edges of docs/architecture.md', () => {
    const violations = graph.edges
      .filter((edge) => {
        const [from, to] = [roomOf(edge.from), roomOf(edge.to)];
        return from !== to && allowed.has(from) && !allowed.get(from)!.has(to);
      })
      .map((edge) => {
        const [from, to] = [roomOf(edge.from), roomOf(edge.to)];
        const may = [...allowed.get(from)!].join(', ') || 'nothing else in src/';
        return (
          `${shown(edge.from)}:${edge.line} imports '${edge.specifier}' (${shown(edge.to)}): ` +
          `${from} → ${to} is not an allowed import (docs/architecture.md, "Allowed imports": ${from} → ${may})`
        );
      });
    assert.deepEqual(violations, [], `\n${violations.join('\n')}`);
  });

  it('reaches an engine only through the engine interface and the registry, never an engine\'s own folder', () => {
    // Only src/engines/ itself and the composition roots may know an engine's insides: what a job
    // costs, how it calls its model, is the engine's to say (engines/engine.ts), so the rooms that
    // use engines stay the same whatever engines there are.
    const composers = new Set(['main', 'app', 'cli']);
    const violations = graph.edges
      .filter((edge) => {
        const from = roomOf(edge.from);
        if (from === 'engines' || composers.has(from) || roomOf(edge.to) !== 'engines') return false;
        return posix(relative(join(SRC, 'engines'), edge.to)).includes('/');
      })
      .map((edge) => `${shown(edge.from)}:${edge.line} imports '${edge.specifier}' (${shown(edge.to)}), inside an engine's own folder`);
    assert.deepEqual(violations, [], `\n${violations.join('\n')}`);
  });

  it('lets only svg/ make a SafeSvg: every document that leaves passed the pipeline', () => {
    // An engine hands over either a SafeSvg (made by svg/) or raw markup the runner finishes;
    // outside svg/ the type may be named but never made, so skipping the pipeline cannot compile.
    const violations = graph.files
      .filter((file) => roomOf(file) !== 'svg')
      .flatMap((file) => safeSvgMakers(file, readFileSync(file, 'utf8')).map((at) => `${shown(file)}:${at} makes a SafeSvg outside src/svg/`));
    assert.deepEqual(violations, [], `\n${violations.join('\n')}`);
    const probe = [
      "import type { SafeSvg } from '../svg/safe-svg.ts';",
      "import { type SafeSvg as S } from '../svg/safe-svg.ts';",
      "import { markSafe } from '../svg/safe-svg.ts';",
      "const a = '<svg/>' as SafeSvg;",
      "const b = <SafeSvg>'<svg/>';",
    ].join('\n');
    assert.deepEqual(safeSvgMakers('probe.ts', probe), [3, 4, 5]);
  });

  it('has no import cycle between files, type-only imports included', () => {
    const cycles = importCycles(graph.files, graph.edges).map((cycle) => cycle.map(shown).join(' → '));
    assert.deepEqual(cycles, [], `import cycles:\n${cycles.join('\n')}`);
  });

  it('finds a cycle and an upward import when there is one', () => {
    const [a, b, c] = ['a.ts', 'b.ts', 'c.ts'].map((name) => join(SRC, 'probe', name)) as [string, string, string];
    const edge = (from: string, to: string): Edge => ({ from, to, specifier: to, line: 1 });
    assert.deepEqual(importCycles([a, b, c], [edge(a, b), edge(b, c), edge(c, a)]), [[a, b, c, a]]);
    assert.deepEqual(importCycles([a, b, c], [edge(a, b), edge(b, c)]), []);
    assert.ok(!allowed.get('contract')!.has('store'), 'contract → store must not be allowed');
  });
});

/** README.md and every docs/*.md page. */
function documentationPages(): string[] {
  const pages = readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(DOCS, name));
  return [README, ...pages];
}

/** The paths a page names in code spans: a token with a slash, or a file name ending in .ts/.mts. */
function namedPaths(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/`([^`\s]+)`/g)]
      .map((match) => match[1]!)
      .filter((token) => /^[\w][\w./-]*(?:\.(?:ts|mjs|js|md|json)|\/)$/.test(token))
      .filter((token) => token.includes('/') || /\.m?ts$/.test(token)),
  );
}

describe('the README and docs/', () => {
  const pages = documentationPages();

  it('links every page of docs/ from the README', () => {
    assert.ok(pages.includes(ARCHITECTURE), `${shown(ARCHITECTURE)} is missing`);
    const readme = readFileSync(README, 'utf8');
    const unlisted = pages.filter((page) => page !== README && !readme.includes(`](${shown(page)})`)).map(shown);
    assert.deepEqual(unlisted, [], `pages of docs/ the README does not link: ${unlisted.join(', ')}`);
  });

  it('names only files and folders that exist (paths from the root, or from src/)', () => {
    let count = 0;
    const missing: string[] = [];
    for (const page of pages) {
      const named = namedPaths(readFileSync(page, 'utf8'));
      count += named.size;
      for (const path of named) {
        if (!existsSync(join(ROOT, path)) && !existsSync(join(SRC, path))) missing.push(`${shown(page)}: ${path}`);
      }
    }
    assert.ok(count > 10, `only ${count} paths found in README.md and docs/*.md`);
    assert.deepEqual(missing, [], `the documentation names paths that do not exist:\n${missing.join('\n')}`);
  });
});
