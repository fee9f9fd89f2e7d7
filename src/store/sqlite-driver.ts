import { createRequire } from 'node:module';
import type SqliteDatabase from 'better-sqlite3';

/**
 * better-sqlite3, in the build that suits the running Node. Version 12 (compiled at install) is
 * the one that runs on Node 20, but on Node 24.19 and later it aborts the process whenever the
 * garbage collector finalizes one of its statements outside JavaScript (an idle collection, or
 * at exit): Node's ObjectWrap began to remove a cleanup hook there. Version 13 (Node-API, built
 * for each platform inside its package) has no such destructor but does not run on Node 20. So
 * 13 is an optional dependency, `better-sqlite3-napi`, that npm installs only on Node 22 and
 * later, and it is used wherever it is installed; 12 serves Node 20. Both have the same API.
 */
const require = createRequire(import.meta.url);

export type SqliteDriver = typeof SqliteDatabase;

/** The package the service opens SQLite files with in this process. */
export const sqliteDriverPackage: 'better-sqlite3-napi' | 'better-sqlite3' = pickPackage();

export const Sqlite: SqliteDriver = require(sqliteDriverPackage) as SqliteDriver;

function pickPackage(): typeof sqliteDriverPackage {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) return 'better-sqlite3';
  try {
    require.resolve('better-sqlite3-napi');
    return 'better-sqlite3-napi';
  } catch {
    // Installed with --omit=optional, or on a platform without a build: version 12 is what is left.
    if (major >= 24) {
      process.emitWarning(
        'better-sqlite3-napi is not installed (npm ci --omit=optional?): better-sqlite3 12 can abort on Node 24. Reinstall with optional dependencies.',
      );
    }
    return 'better-sqlite3';
  }
}
