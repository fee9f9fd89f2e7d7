// The API client commands start without the server: from main.ts and their command modules, the
// imports that load at once (static ones; dynamic import() is the lazy path) reach nothing outside
// src/cli/ and no package beyond commander and eventsource-parser. The admin commands load the
// config schema, store and engines, about two seconds of a start; this keeps them out.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRIES = ['main.ts', 'commands/generate.ts', 'commands/vectorize.ts', 'commands/edit.ts', 'commands/animate.ts', 'commands/models.ts'].map(
  (file) => join(ROOT, 'src/cli', file),
);
const ALLOWED_PACKAGES = new Set(['commander', 'eventsource-parser/stream']);
/** Outside src/cli/ but loaded at start: the package's version (one read of package.json, no imports of its own). */
const ALLOWED_OUTSIDE = new Set(['src/config/version.ts']);

/**
 * The specifiers a module loads when it is imported: static imports and re-exports, not `import
 * type` (erased) and not import() (loaded when called). With verbatimModuleSyntax, `import { type
 * A }` still loads its module, so only a type-only clause is skipped.
 */
function eagerImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly && ts.isStringLiteral(statement.moduleSpecifier)) {
      specifiers.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers;
}

/** Every source file and package loaded at once from the entries. */
function loadedAtStart(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of eagerImports(file)) {
      if (specifier.startsWith('node:')) continue;
      if (!specifier.startsWith('.')) {
        packages.add(specifier);
        continue;
      }
      const target = resolve(dirname(file), specifier);
      assert.ok(existsSync(target), `${relative(ROOT, file)} imports ${specifier}, which is no file`);
      pending.push(target);
    }
  }
  return { files, packages };
}

describe('client command start-up', () => {
  it('loads only src/cli/ modules and the client packages, never the server, store, engines or TypeBox', () => {
    const { files, packages } = loadedAtStart(ENTRIES);
    const outside = [...files].map((file) => relative(ROOT, file)).filter((file) => !file.startsWith('src/cli/') && !ALLOWED_OUTSIDE.has(file));
    assert.deepEqual(outside, [], 'modules outside src/cli/ loaded at start');
    assert.deepEqual([...packages].filter((name) => !ALLOWED_PACKAGES.has(name)), [], 'packages loaded at start');
    assert.ok(!files.has(join(ROOT, 'src/cli/context.ts')), 'the admin context (store, config) loads only for admin commands');
  });

  it('sees an admin command reach the store through the admin context (the walk finds what it should)', () => {
    const { files } = loadedAtStart([join(ROOT, 'src/cli/context.ts')]);
    assert.ok(files.has(join(ROOT, 'src/store/index.ts')));
  });
});
