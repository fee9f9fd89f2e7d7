/** A throw-away PostgreSQL database for one benchmark run (`--postgres`). */
import pg from 'pg';

/** A new, empty database on DATABASE_URL's server, for one run. */
export async function temporaryDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = process.env.DATABASE_URL;
  if (!admin || !process.env.REDIS_URL) throw new Error('--postgres needs DATABASE_URL and REDIS_URL');
  const name = `inkwell_bench_${process.pid}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}
