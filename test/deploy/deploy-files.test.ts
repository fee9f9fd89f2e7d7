import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import semver from 'semver';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config/load.ts';
import { SETTINGS } from '../../src/config/settings.ts';
import { OpenAiCompatibleOptions } from '../../src/engines/openai-compatible/options.ts';

/**
 * The Dockerfile, compose.yaml and deploy/ are kept correct without Docker (the CI machine has no
 * daemon): by reading them against the code they configure.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const run = promisify(execFile);

const packageJson = JSON.parse(read('package.json')) as {
  engines: { node: string };
  bin: Record<string, string>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/** The Node releases `.ci/run` smoke-tests besides the host's own, as `.ci/node-smoke VERSION`. */
const smokeTested = [...read('.ci/run').matchAll(/^\.ci\/node-smoke (\d+\.\d+\.\d+) /gm)].map((match) => match[1]!);
const lowestSupported = semver.minVersion(packageJson.engines.node)!.version;

// ---------------------------------------------------------------- Dockerfile

interface Instruction {
  name: string;
  args: string;
  stage: number;
}

/** Instructions with continuation lines joined and comments dropped; `stage` counts FROM lines. */
function dockerfile(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  let stage = -1;
  return logical.map((line) => {
    const [, name, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    if (name!.toUpperCase() === 'FROM') stage++;
    return { name: name!.toUpperCase(), args: args!.replace(/\s+/g, ' ').trim(), stage };
  });
}

const instructions = dockerfile(read('Dockerfile'));
const lastStage = Math.max(...instructions.map((i) => i.stage));
const final = instructions.filter((i) => i.stage === lastStage);
const all = (name: string, list = instructions) => list.filter((i) => i.name === name);
const one = (name: string, list = final) => {
  const found = all(name, list);
  assert.equal(found.length, 1, `one ${name} in the runtime stage`);
  return found[0]!;
};

/** The ENV values of the runtime stage (`ENV A=1 B=2` form). */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of all('ENV', final)) {
    for (const [, key, value] of args.matchAll(/([A-Z0-9_]+)=("[^"]*"|\S+)/g)) env[key!] = value!.replace(/^"|"$/g, '');
  }
  return env;
}

/** The `node -e` script of an exec-form health check command. */
function healthScript(command: string[]): string {
  assert.deepEqual(command.slice(0, 3).map((part, i) => (i === 0 ? part.replace(/^CMD(-SHELL)?$/, 'CMD') : part)), ['CMD', 'node', '-e']);
  assert.equal(command.length, 4, 'node -e SCRIPT and nothing else');
  return command[3]!;
}

/**
 * Runs a health-check one-liner against a local server that answers `status` on a free port (given
 * to the script as INKWELL_PORT, or written into it by `script`); resolves with its exit code and
 * the path it asked for.
 */
async function probe(script: (port: number) => string, status: number, env: (port: number) => Record<string, string> = (port) => ({ INKWELL_PORT: String(port) })): Promise<{ code: number; path?: string }> {
  let path: string | undefined;
  const server = createServer((request, response) => {
    path = request.url;
    response.writeHead(status).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  try {
    const { INKWELL_PORT: _port, INKWELL_METRICS_PORT: _metrics, ...rest } = process.env;
    await run(process.execPath, ['-e', script(port)], { env: { ...rest, ...env(port) }, timeout: 10_000 });
    return { code: 0, path };
  } catch (error) {
    return { code: (error as { code: number }).code, path };
  } finally {
    server.close();
  }
}

describe('the Dockerfile', () => {
  it('builds on and runs a current Node LTS that CI smoke-tests and package.json engines accepts', () => {
    const froms = all('FROM').map((i) => i.args.split(' ')[0]!).filter((image) => image.startsWith('node:'));
    assert.equal(froms.length, lastStage + 1, 'every stage is a node image');
    assert.equal(new Set(froms).size, 1, `one image for both stages: ${froms.join(', ')}`);
    const major = Number(/^node:(\d+)(?:\.[\d.]+)?-bookworm-slim$/.exec(froms[0]!)?.[1]);
    assert.ok(major >= 22 && major % 2 === 0, `${froms[0]} is an LTS line that is not past its end of life`);
    assert.ok(smokeTested.some((version) => semver.major(version) === major), `.ci/run smoke-tests Node ${major}: ${smokeTested.join(', ')}`);
    assert.ok(semver.satisfies(`${major}.0.0`, packageJson.engines.node), `engines ${packageJson.engines.node} accepts Node ${major}`);
  });

  it('every locked package accepts the lowest supported Node and each smoke-tested one, so npm ci warns of no engine', () => {
    assert.ok(smokeTested.length >= 2, `.ci/run smoke-tests Node 22 and 24: ${smokeTested.join(', ')}`);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] }> };
    const refusals: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = !entry.engines || Array.isArray(entry.engines) ? undefined : entry.engines.node;
      // npm skips, without a warning, an optional package that refuses the running Node (better-sqlite3
      // 13 on Node 20) or system (sharp's 32-bit Windows build, which asks for Node 20 only).
      if (!range || entry.optional) continue;
      for (const version of [lowestSupported, ...smokeTested]) {
        if (!semver.satisfies(version, range)) refusals.push(`${path || 'inkwell'} (${range}) refuses Node ${version}`);
      }
    }
    assert.deepEqual(refusals, []);
  });

  it('builds dist/ with the dev dependencies and the toolchain better-sqlite3 compiles with, then drops them', () => {
    const build = instructions.filter((i) => i.stage < lastStage);
    const runs = all('RUN', build).map((i) => i.args).join(' ; ');
    for (const tool of ['python3', 'make', 'g++']) assert.ok(runs.split(/\s+/).includes(tool), tool);
    assert.ok(packageJson.dependencies['better-sqlite3']);
    // TypeScript is a dev dependency: installed for the build (no --omit=dev there), pruned after it.
    assert.ok(packageJson.devDependencies.typescript, 'typescript is a dev dependency');
    const install = runs.search(/npm ci\b(?![^;]*--omit=dev)/);
    const compile = runs.search(/npm run build\b/);
    const prune = runs.search(/npm prune\b[^;]*--omit=dev/);
    assert.ok(install >= 0 && compile > install && prune > compile, `npm ci, then npm run build, then npm prune --omit=dev: ${runs}`);
    assert.equal(packageJson.scripts.build, 'node scripts/build.mjs');
    const buildCopies = all('COPY', build).flatMap((i) => i.args.split(' ').slice(0, -1));
    for (const input of ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs', 'bin', 'src']) assert.ok(buildCopies.includes(input), `the build stage copies ${input}`);
  });

  it('runs the build from dist/: no TypeScript source in the runtime stage', () => {
    const copies = all('COPY', final).map((i) => i.args);
    assert.ok(copies.some((args) => /--from=\S+ \/app\/node_modules \.\/node_modules/.test(args)), 'node_modules from the build stage');
    assert.ok(copies.some((args) => /--from=\S+ \/app\/dist \.\/dist/.test(args)), 'dist/ from the build stage');
    assert.ok(!copies.some((args) => args.split(' ').includes('src')), 'no src/');
    // bin/inkwell.js runs dist/ when it is a build of the sources beside it, or when there are none.
    assert.match(read('bin/inkwell.js'), /import\('\.\.\/dist\/cli\/main\.js'\)/);
    assert.match(read('bin/build-freshness.js'), /if \(!existsSync\(sources\)\) return undefined;/);
  });

  it('copies only paths that exist and that .dockerignore lets into the build context', () => {
    const ignore = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    // The subset of .dockerignore syntax the file uses: `*` and `!name` / `!name/`, last match wins.
    const included = (path: string) => {
      let inside = true;
      for (const pattern of ignore) {
        const negated = pattern.startsWith('!');
        const name = pattern.replace(/^!/, '').replace(/\/$/, '');
        assert.ok(name === '*' || !/[*?[]/.test(name), `pattern ${pattern} is beyond what this test understands`);
        if (name === '*' || path === name || path.startsWith(`${name}/`)) inside = negated;
      }
      return inside;
    };
    const sources = all('COPY')
      .filter((i) => !i.args.includes('--from='))
      .flatMap((i) => i.args.split(' ').filter((part) => !part.startsWith('--')).slice(0, -1));
    assert.ok(sources.length > 0);
    for (const source of sources) {
      assert.ok(existsSync(join(ROOT, source)), `${source} exists`);
      assert.ok(included(source.replace(/^\.\//, '').replace(/\/$/, '')), `${source} is not excluded by .dockerignore`);
    }
    for (const needed of ['package.json', 'package-lock.json', 'bin', 'src']) assert.ok(sources.includes(needed), needed);
    for (const kept of ['node_modules', 'data', '.git', 'test']) assert.ok(!included(kept), `${kept} stays out of the context`);
  });

  it('runs `inkwell serve` as a non-root user under an init that forwards SIGTERM', () => {
    const users = all('USER', final);
    assert.ok(users.length > 0, 'a USER line');
    assert.ok(!['root', '0', '0:0'].includes(users.at(-1)!.args), 'the last USER is not root');
    const link = /ln -s \/app\/(\S+) \/usr\/local\/bin\/(\S+)/.exec(all('RUN', final).map((i) => i.args).join(' '));
    assert.ok(link, 'the inkwell command is on PATH');
    assert.equal(packageJson.bin[link[2]!], link[1], 'it is package.json bin');
    assert.deepEqual(JSON.parse(one('ENTRYPOINT').args), ['/usr/bin/tini', '--']);
    assert.deepEqual(JSON.parse(one('CMD').args), [link[2], 'serve']);
    // node as PID 1 under tini: the server must handle SIGTERM itself, which `serve` does.
    assert.match(read('src/cli/commands/serve.ts'), /process\.once\('SIGTERM'/);
  });

  it('shows a working run command in its header: published on 127.0.0.1, with the model server named', () => {
    const header = read('Dockerfile').split('\n').filter((line) => line.startsWith('#')).map((line) => line.replace(/^#\s?/, '')).join('\n');
    const command = /docker run [^`(]*?inkwell$/m.exec(header.replace(/\\\n\s*/g, ' '))?.[0] ?? '';
    assert.match(command, /-p 127\.0\.0\.1:8080:8080/);
    assert.match(command, /-e INKWELL_UPSTREAM_BASE_URL=http:\/\/host\.docker\.internal:\d+\/v1/);
    assert.match(command, /--add-host=host\.docker\.internal:host-gateway/);
  });

  it('listens on all interfaces on the exposed port and keeps SQLite on the /data volume', () => {
    const env = imageEnv();
    assert.equal(env.INKWELL_HOST, '0.0.0.0');
    assert.equal(one('EXPOSE').args, env.INKWELL_PORT);
    assert.equal(env.INKWELL_DATA_DIR, '/data');
    assert.deepEqual(JSON.parse(one('VOLUME').args), ['/data']);
    assert.match(all('RUN', final).map((i) => i.args).join(' '), /chown node:node \/data/);
    for (const name of Object.keys(env)) assert.ok(SETTINGS.some((s) => s.env === name), `${name} is a setting`);
  });

  it('has a HEALTHCHECK that exits 0 when GET /healthz answers 200 and 1 otherwise', async () => {
    const [, command] = /^(?:--\S+ )*CMD (\[.*\])$/.exec(one('HEALTHCHECK').args) ?? [];
    assert.ok(command, 'exec-form HEALTHCHECK … CMD [...]');
    const script = healthScript(['CMD', ...(JSON.parse(command) as string[])]);
    assert.deepEqual(await probe(() => script, 200), { code: 0, path: '/healthz' });
    assert.deepEqual(await probe(() => script, 503), { code: 1, path: '/healthz' });
  });

  it('asks the metrics port instead when INKWELL_METRICS_PORT names one (its own accept queue)', async () => {
    const [, command] = /^(?:--\S+ )*CMD (\[.*\])$/.exec(one('HEALTHCHECK').args) ?? [];
    const script = healthScript(['CMD', ...(JSON.parse(command!) as string[])]);
    // The API port (1, where nothing listens) is not asked: the metrics port answers.
    const onMetrics = (port: number) => ({ INKWELL_PORT: '1', INKWELL_METRICS_PORT: String(port) });
    assert.deepEqual(await probe(() => script, 200, onMetrics), { code: 0, path: '/healthz' });
    assert.deepEqual(await probe(() => script, 503, onMetrics), { code: 1, path: '/healthz' });
    // 0 (a free port picked at start) cannot be known from outside: the API port is asked.
    assert.deepEqual(await probe(() => script, 200, (port) => ({ INKWELL_PORT: String(port), INKWELL_METRICS_PORT: '0' })), { code: 0, path: '/healthz' });
  });
});

// ---------------------------------------------------------------- compose.yaml

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
}

const compose = parseYaml(read('compose.yaml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const replicas = Object.entries(services).filter(([, s]) => s.build !== undefined || s.image?.startsWith('inkwell'));
const settingEnv = new Set([...SETTINGS.map((s) => s.env), 'DATABASE_URL', 'REDIS_URL']);

/**
 * A compose value with `${NAME:-default}` / `${NAME}` interpolated as if none of them were set, and
 * a required `${NAME:?message}` as if it were (to `set-by-operator`): compose refuses to start otherwise.
 */
const interpolated = (value: string) =>
  String(value)
    .replace(/\$\{[A-Z0-9_]+:\?[^}]*\}/g, 'set-by-operator')
    .replace(/\$\{[A-Z0-9_]+(?::?-([^}]*))?\}/g, (_, fallback: string | undefined) => fallback ?? '');

/** The configuration a replica would run with: its environment through the real loader. */
function replicaConfig(service: Service) {
  const dir = mkdtempSync(join(tmpdir(), 'inkwell-compose-'));
  try {
    // An empty config file, so no inkwell.config.* in the working directory is read.
    writeFileSync(join(dir, 'empty.json'), '{}');
    const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolated(v)]));
    return loadConfig({ env, configFile: join(dir, 'empty.json') });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const seconds = (duration: string) => {
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  assert.ok(match, `duration ${duration}`);
  return Number(match[1]) * { ms: 0.001, s: 1, m: 60 }[match[2] as 'ms' | 's' | 'm'];
};

describe('compose.yaml', () => {
  it('runs PostgreSQL 16, Redis 7, two Inkwell replicas and a proxy', () => {
    assert.match(services.postgres?.image ?? '', /^postgres:16(\b|-)/);
    assert.match(services.redis?.image ?? '', /^redis:7(\b|-)/);
    assert.deepEqual(replicas.map(([name]) => name), ['inkwell-1', 'inkwell-2']);
    assert.match(services.proxy?.image ?? '', /^nginx:/);
  });

  it('sets only real settings in the replicas\' environment, with values the loader accepts', () => {
    for (const [name, service] of replicas) {
      for (const key of Object.keys(service.environment ?? {})) assert.ok(settingEnv.has(key), `${name}: ${key} is not a setting`);
      const config = replicaConfig(service);
      assert.match(config.database_url ?? '', /^postgres:\/\/[^@]+@postgres:5432\//, `${name} uses the postgres service`);
      assert.equal(config.redis_url, 'redis://redis:6379', `${name} uses the redis service`);
      assert.equal(config.server.trust_proxy, true, `${name} trusts the proxy`);
      assert.equal(config.server.host, '0.0.0.0');
    }
  });

  it('keeps replicas reachable only through the proxy, whose forwarded headers they trust', () => {
    for (const [name, service] of replicas) assert.equal(service.ports, undefined, `${name} publishes no port`);
    assert.ok(services.proxy?.ports?.length, 'the proxy publishes a port');
  });

  it('publishes the proxy on 127.0.0.1 unless INKWELL_BIND says otherwise', () => {
    assert.deepEqual((services.proxy?.ports ?? []).map(interpolated), ['127.0.0.1:8080:80']);
    assert.match(String(services.proxy?.ports?.[0]), /^\$\{INKWELL_BIND:-127\.0\.0\.1\}:/);
  });

  it('refuses to start without POSTGRES_PASSWORD: no default password anywhere', () => {
    const text = read('compose.yaml');
    const uses = [...text.matchAll(/\$\{POSTGRES_PASSWORD([^}]*)\}/g)].map((match) => match[1]!);
    assert.ok(uses.length >= 2, 'the database and the replicas both read it');
    for (const use of uses) assert.match(use, /^:\?/, `\${POSTGRES_PASSWORD${use}} must be required`);
  });

  it('.env.example names every variable compose.yaml reads, and nothing else', () => {
    const read_ = new Set([...read('compose.yaml').matchAll(/\$\{([A-Z0-9_]+)/g)].map((match) => match[1]!));
    const example = new Set(read('.env.example').split('\n').flatMap((line) => /^([A-Z0-9_]+)=/.exec(line)?.[1] ?? []));
    assert.deepEqual([...example].sort(), [...read_].sort());
    assert.match(read('.env.example'), /^POSTGRES_PASSWORD=$/m, 'no example password to forget to change');
  });

  it('starts replicas after healthy PostgreSQL and Redis, and the proxy after ready replicas', () => {
    for (const dependency of ['postgres', 'redis']) assert.ok(services[dependency]?.healthcheck?.test?.length, `${dependency} has a health check`);
    for (const [name, service] of replicas) {
      assert.deepEqual(service.depends_on, { postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } }, name);
    }
    assert.deepEqual(
      services.proxy?.depends_on,
      Object.fromEntries(replicas.map(([name]) => [name, { condition: 'service_healthy' }])),
    );
  });

  it('checks each replica\'s readiness at GET /readyz on the port it listens on', async () => {
    for (const [name, service] of replicas) {
      const script = healthScript(service.healthcheck!.test);
      const port = replicaConfig(service).server.port;
      assert.ok(script.includes(`http://127.0.0.1:${port}/readyz`), `${name} checks /readyz on ${port}`);
      // The same one-liner against a local server on a free port: 0 when ready, 1 when not.
      const local = (at: number) => script.replace(`:${port}/`, `:${at}/`);
      const ready = await probe(local, 200);
      const notReady = await probe(local, 503);
      assert.deepEqual([ready, notReady], [{ code: 0, path: '/readyz' }, { code: 1, path: '/readyz' }], name);
    }
  });

  it('gives in-flight requests their shutdown grace before the container is killed', () => {
    for (const [name, service] of replicas) {
      const grace = replicaConfig(service).server.shutdown_grace_ms / 1000;
      assert.ok(seconds(service.stop_grace_period ?? '10s') > grace, `${name}: stop_grace_period beyond ${grace} s`);
    }
  });

  it('mounts proxy configuration that exists in deploy/', () => {
    const mounts = (services.proxy?.volumes ?? []).map((volume) => volume.split(':')[0]!);
    assert.ok(mounts.length > 0);
    for (const source of mounts) {
      assert.match(source, /^\.\/deploy\//);
      assert.ok(existsSync(join(ROOT, source)), source);
    }
  });
});

// ---------------------------------------------------------------- deploy/nginx.conf

describe('deploy/nginx.conf', () => {
  const conf = read('deploy/nginx.conf').replace(/#.*$/gm, '');
  const directive = (name: string) => [...conf.matchAll(new RegExp(`^\\s*${name}\\s+([^;]+);`, 'gm'))].map((m) => m[1]!.trim());

  it('routes to both replicas on the port they listen on', () => {
    const [upstream, block] = /upstream\s+(\S+)\s*\{([^}]*)\}/.exec(conf)?.slice(1) ?? [];
    assert.ok(upstream && block, 'an upstream block');
    const servers = [...block.matchAll(/^\s*server\s+([^\s;]+)/gm)].map((m) => m[1]);
    const expected = replicas.map(([name, service]) => `${name}:${replicaConfig(service).server.port}`);
    assert.deepEqual(servers, expected);
    assert.deepEqual(directive('proxy_pass'), [`http://${upstream}`]);
  });

  it('passes server-sent events through unbuffered, with read timeouts longer than a model call', () => {
    assert.deepEqual(directive('proxy_buffering'), ['off']);
    assert.deepEqual(directive('proxy_http_version'), ['1.1']);
    const totalTimeoutMs = (OpenAiCompatibleOptions.properties.total_timeout_ms as { default: number }).default;
    for (const name of ['proxy_read_timeout', 'proxy_send_timeout']) {
      const [value] = directive(name);
      assert.ok(value && seconds(value) * 1000 > totalTimeoutMs, `${name} ${value} exceeds an upstream call's ${totalTimeoutMs} ms`);
    }
  });

  it('sets the forwarded headers the replicas trust', () => {
    const headers = directive('proxy_set_header').map((line) => line.split(/\s+/)[0]);
    for (const header of ['Host', 'X-Forwarded-For', 'X-Forwarded-Proto']) assert.ok(headers.includes(header), header);
  });
});
