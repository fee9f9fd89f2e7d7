/**
 * The `inkwell` admin commands, run in this process: main() with captured stdout and stderr, an
 * environment cleared of INKWELL_* and DATABASE_URL, and a temporary data directory given as a
 * flag. What only a real process shows (the working directory, the process environment, serve and
 * its signals) is in binary.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ModelList } from '../../src/contract/models.ts';
import { describeRun, inkwell, ok, scratchDirs, type CliResult } from '../helpers/cli.ts';
import { assertMatches } from '../helpers/schemas.ts';

/** Where a secret could appear anywhere in some output. */
const ANY_SECRET = /sk_(?:test|live|admin)_[0-9A-Za-z]{43}/g;
const SECRET = /^sk_(test|live|admin)_[0-9A-Za-z]{43}$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

const workdir = scratchDirs('inkwell-cli-');

/** Asserts success and parses stdout as the one JSON document --json prints. */
function okJson<T = any>(result: CliResult): T {
  return JSON.parse(ok(result)) as T;
}

/**
 * Asserts failure: a non-zero exit, nothing on stdout, and an error message on stderr. The CLI's
 * own errors are exactly one line, `inkwell: …`; commander's (unknown or missing options) start
 * with `error: …` and are followed by the usage.
 */
function fails(result: CliResult, message: RegExp): void {
  assert.notEqual(result.code, 0, describeRun(result));
  assert.equal(result.stdout, '', describeRun(result));
  const lines = result.stderr.trimEnd().split('\n');
  if (lines[0]!.startsWith('inkwell: ')) assert.equal(lines.length, 1, `one line expected\n${describeRun(result)}`);
  else assert.match(lines[0]!, /^error: /, describeRun(result));
  assert.match(lines[0]!, message, describeRun(result));
}

const secretsIn = (text: string) => [...new Set(text.match(ANY_SECRET) ?? [])];
const hintOf = (secret: string) => `${secret.slice(0, secret.lastIndexOf('_') + 1)}…${secret.slice(-4)}`;

describe('inkwell CLI', { concurrency: true }, () => {
  it('org create/list/show/set-status and credits grant/show agree on the balance', async () => {
    const home = workdir('org');
    const run = (...args: string[]) => inkwell([...args, '--data-dir', home]);

    const created = okJson(await run('org', 'create', 'Acme Inc', '--credits', '12.5', '--json'));
    assert.match(created.id, /^org_/);
    assert.deepEqual({ ...created, id: undefined, created_at: undefined }, { id: undefined, name: 'Acme Inc', status: 'active', balance_credits: 12.5, created_at: undefined });
    assert.match(created.created_at, ISO_TIME);
    const org = created.id as string;

    const [shown, ledger, list, listHuman, showHuman] = await Promise.all([
      run('org', 'show', org, '--json'),
      run('credits', 'show', '--org', org, '--json'),
      run('org', 'list', '--json'),
      run('org', 'list'),
      run('org', 'show', org),
    ]);
    assert.deepEqual(okJson(shown), { ...created, keys: 0, active_keys: 0 });
    const entries = okJson(ledger);
    assert.equal(entries.organization_id, org);
    assert.equal(entries.balance_credits, 12.5);
    assert.equal(entries.entries.length, 1);
    assert.deepEqual(
      { kind: entries.entries[0].kind, credits: entries.entries[0].credits, balance_after: entries.entries[0].balance_after, note: entries.entries[0].note },
      { kind: 'grant', credits: 12.5, balance_after: 12.5, note: 'starting credits' },
    );
    assert.deepEqual(okJson(list), { data: [created] });
    const table = ok(listHuman).trimEnd().split('\n');
    assert.match(table[0]!, /^ID\s+NAME\s+STATUS\s+BALANCE_CREDITS\s+CREATED_AT$/);
    assert.equal(table.length, 2);
    assert.match(table[1]!, new RegExp(`^${org}\\s+Acme Inc\\s+active\\s+12\\.5\\s`));
    assert.match(ok(showHuman), /^balance_credits\s+12\.5$/m);

    const grant = okJson(await run('credits', 'grant', '0.25', '--org', org, '--note', 'top-up', '--json'));
    assert.match(grant.entry_id, /^led_/);
    assert.deepEqual({ ...grant, entry_id: undefined }, { organization_id: org, granted_credits: 0.25, balance_credits: 12.75, entry_id: undefined });
    const grantHuman = ok(await run('credits', 'grant', '1', '--org', org));
    assert.equal(grantHuman, `Granted 1 credits to ${org}; balance 13.75.\n`);

    const status = okJson(await run('org', 'set-status', org, 'frozen', '--json'));
    assert.deepEqual(status, { id: org, status: 'frozen' });

    const [afterShow, afterLedger, afterLedgerHuman] = await Promise.all([
      run('org', 'show', org, '--json'),
      run('credits', 'show', '--org', org, '--json', '--limit', '2'),
      run('credits', 'show', '--org', org),
    ]);
    assert.deepEqual(okJson(afterShow), { ...created, status: 'frozen', balance_credits: 13.75, keys: 0, active_keys: 0 });
    const latest = okJson(afterLedger);
    assert.equal(latest.balance_credits, 13.75);
    assert.deepEqual(
      latest.entries.map((e: { credits: number; balance_after: number; note: string | null }) => [e.credits, e.balance_after, e.note]),
      [
        [1, 13.75, null],
        [0.25, 12.75, 'top-up'],
      ],
      'newest first, limited to --limit',
    );
    const human = ok(afterLedgerHuman);
    assert.match(human, new RegExp(`^Organization ${org} balance: 13\\.75 credits \\(0 reserved, 13\\.75 available\\)$`, 'm'));
    assert.match(human, /\sstarting credits$/m);
  });

  it('key create prints the secret once; key list never shows it; revoke works once', async () => {
    const home = workdir('key');
    const run = (...args: string[]) => inkwell([...args, '--data-dir', home]);
    const org = okJson(await run('org', 'create', 'Keys', '--json')).id as string;

    const [testKey, liveKey, adminKey] = await Promise.all([
      run('key', 'create', '--org', org, '--kind', 'project', '--env', 'test', '--name', 'ci', '--json'),
      run('key', 'create', '--org', org, '--kind', 'project', '--env', 'live', '--models', 'local-svg,inkwell-trace', '--capabilities', 'svg_generate,catalog_read'),
      run('key', 'create', '--org', org, '--kind', 'admin', '--permissions', 'billing_read', '--json'),
    ]);

    const test = okJson(testKey);
    assert.match(test.secret, SECRET);
    assert.ok(test.secret.startsWith('sk_test_'));
    assert.match(test.id, /^key_/);
    assert.deepEqual(
      { ...test, id: undefined, secret: undefined, created_at: undefined },
      {
        id: undefined,
        organization_id: org,
        kind: 'project',
        environment: 'test',
        name: 'ci',
        hint: hintOf(test.secret),
        scopes: ['*'],
        models: ['*'],
        created_at: undefined,
        revoked_at: null,
        secret: undefined,
      },
    );
    assert.deepEqual(secretsIn(testKey.stdout), [test.secret], 'the secret appears once, in the secret field');

    const liveText = ok(liveKey);
    const liveSecrets = secretsIn(liveText);
    assert.equal(liveSecrets.length, 1, liveText);
    assert.equal(liveText.match(ANY_SECRET)!.length, 1, 'printed exactly once');
    const live = liveSecrets[0]!;
    assert.match(live, SECRET);
    assert.ok(live.startsWith('sk_live_'));
    assert.match(liveText, /^Created project key key_\w+\.$/m);
    assert.match(liveText, /shown once/);
    assert.match(liveText, new RegExp(`^  ${live}$`, 'm'));

    const admin = okJson(adminKey);
    assert.match(admin.secret, SECRET);
    assert.ok(admin.secret.startsWith('sk_admin_'));
    assert.deepEqual([admin.kind, admin.environment, admin.scopes, admin.models], ['admin', null, ['billing_read'], []]);

    const secrets = [test.secret as string, live, admin.secret as string];
    const [listed, listedHuman, orgShow] = await Promise.all([
      run('key', 'list', '--org', org, '--json'),
      run('key', 'list', '--org', org),
      run('org', 'show', org, '--json'),
    ]);
    for (const result of [listed, listedHuman]) {
      const text = ok(result);
      assert.deepEqual(secretsIn(text), [], text);
      for (const secret of secrets) assert.ok(!text.includes(secret.slice(-20)), 'no part of a secret beyond its hint');
      assert.ok(!text.includes('secret'), 'neither the secret nor its hash');
    }
    const keys = okJson(listed).data as Record<string, unknown>[];
    assert.equal(keys.length, 3);
    assert.deepEqual(new Set(keys.map((k) => k.hint)), new Set(secrets.map(hintOf)));
    for (const k of keys) assert.deepEqual(Object.keys(k).sort(), ['created_at', 'environment', 'hint', 'id', 'kind', 'models', 'name', 'organization_id', 'revoked_at', 'scopes']);
    const liveListed = keys.find((k) => k.environment === 'live')!;
    assert.deepEqual([liveListed.scopes, liveListed.models], [['catalog_read', 'svg_generate'], ['inkwell-trace', 'local-svg']]);
    for (const secret of secrets) assert.ok(ok(listedHuman).includes(hintOf(secret)));
    const testRow = ok(listedHuman).split('\n').find((line) => line.includes(hintOf(test.secret)))!;
    assert.match(testRow, /\sci\s/, 'the table names each key');
    assert.deepEqual([okJson(orgShow).keys, okJson(orgShow).active_keys], [3, 3]);

    const revoked = okJson(await run('key', 'revoke', test.id, '--json'));
    assert.equal(revoked.id, test.id);
    assert.match(revoked.revoked_at, ISO_TIME);
    assert.equal(revoked.secret, undefined);

    const [again, afterList, afterShow] = await Promise.all([
      run('key', 'revoke', test.id),
      run('key', 'list', '--org', org, '--json'),
      run('org', 'show', org, '--json'),
    ]);
    fails(again, new RegExp(`^inkwell: key ${test.id} was already revoked$`));
    const revokedAt = Object.fromEntries((okJson(afterList).data as { id: string; revoked_at: string | null }[]).map((k) => [k.id, k.revoked_at]));
    assert.equal(revokedAt[test.id], revoked.revoked_at);
    assert.equal(Object.values(revokedAt).filter((v) => v === null).length, 2);
    assert.deepEqual([okJson(afterShow).keys, okJson(afterShow).active_keys], [3, 2]);
  });

  it('refuses bad input with a non-zero exit and a one-line message, changing nothing', async () => {
    const home = workdir('bad');
    const run = (...args: string[]) => inkwell(args.includes('--data-dir') ? args : [...args, '--data-dir', home]);
    const org = okJson(await run('org', 'create', 'Target', '--json')).id as string;
    const missingConfig = join(home, 'missing.yaml');
    const invalidConfig = join(home, 'invalid.yaml');
    writeFileSync(invalidConfig, 'billing:\n  millicents_per_credit: 0\n');
    const aFile = join(home, 'a-file');
    writeFileSync(aFile, '');

    const cases: [string[], RegExp][] = [
      [['org', 'create', 'Bad', '--credits', '-1'], /^inkwell: "-1" is not a credit amount/],
      [['org', 'create', 'Bad', '--credits', '1.0001'], /^inkwell: 1\.0001 credits is not a whole number of millicents$/],
      [['org', 'create', '  '], /^inkwell: the organization name must not be empty$/],
      [['org', 'show', 'org_missing'], /^inkwell: organization org_missing does not exist$/],
      [['org', 'set-status', org, 'suspended'], /^inkwell: unknown status "suspended" \(expected active, closed, frozen, /],
      [['key', 'create', '--org', 'org_missing', '--kind', 'project', '--env', 'test'], /^inkwell: organization org_missing does not exist$/],
      [['key', 'create', '--org', org, '--kind', 'owner', '--env', 'test'], /^inkwell: --kind must be project or admin, not "owner"$/],
      [['key', 'create', '--org', org, '--kind', 'project', '--env', 'prod'], /^inkwell: --env must be test or live, not "prod"$/],
      [['key', 'create', '--org', org, '--kind', 'project'], /^inkwell: a project key needs --env test or --env live$/],
      [['key', 'create', '--org', org, '--kind', 'admin', '--capabilities', 'svg_generate'], /^inkwell: --capabilities is for project keys/],
      [['key', 'create', '--org', org, '--kind', 'project', '--env', 'live', '--capabilities', 'svg_paint'], /^inkwell: unknown capability "svg_paint"/],
      [['key', 'create', '--kind', 'project', '--env', 'test'], /required option '--org <id>' not specified/],
      [['key', 'list', '--org', 'org_missing'], /^inkwell: organization org_missing does not exist$/],
      [['key', 'revoke', 'key_missing'], /^inkwell: key key_missing does not exist$/],
      [['credits', 'grant', '0', '--org', org], /^inkwell: the amount must be more than zero$/],
      [['credits', 'grant', 'ten', '--org', org], /^inkwell: "ten" is not a credit amount/],
      [['credits', 'grant', '10', '--org', 'org_missing'], /^inkwell: organization org_missing does not exist$/],
      [['credits', 'show', '--org', 'org_missing'], /^inkwell: organization org_missing does not exist$/],
      [['models', 'list', '--config', missingConfig], /^inkwell: Cannot read config file .*missing\.yaml: ENOENT$/],
      [['openapi', '--config', invalidConfig], /^inkwell: Invalid configuration .* at billing\.millicents_per_credit: must be >= 1$/],
      [['org', 'list', '--data-dir', join(aFile, 'data')], /^inkwell: ENOTDIR: not a directory, mkdir '.*a-file\/data'$/],
    ];
    const results = await Promise.all(cases.map(([args]) => run(...args)));
    results.forEach((result, i) => fails(result, cases[i]![1]));

    const [listed, shown] = await Promise.all([run('org', 'list', '--json'), run('org', 'show', org, '--json')]);
    assert.deepEqual(okJson(listed).data.map((o: { id: string }) => o.id), [org], 'no organization was created');
    assert.deepEqual(
      (({ status, balance_credits, keys }) => ({ status, balance_credits, keys }))(okJson(shown)),
      { status: 'active', balance_credits: 0, keys: 0 },
      'no refused command changed, credited or added a key to the organization',
    );
  });

  it('--config (YAML flag or JSON via INKWELL_CONFIG) is honoured: billing and catalog', async () => {
    const home = workdir('config');
    const yaml = join(home, 'inkwell-test.yaml');
    writeFileSync(
      yaml,
      [
        'billing:',
        '  millicents_per_credit: 100000',
        'catalog:',
        '  models:',
        '    - id: my-svg',
        '      engine: openai-compatible',
        '      operations: [svg_generate, svg_edit]',
        '      billing: { kind: fixed_credit, credits: { svg_generate: 3, svg_edit: 5 } }',
        '',
      ].join('\n'),
    );
    const json = join(home, 'inkwell-test.json');
    writeFileSync(
      json,
      JSON.stringify({
        catalog: {
          include_builtin: false,
          models: [{ id: 'only-one', engine: 'openai-compatible', operations: ['svg_generate'], billing: { kind: 'fixed_credit', credits: { svg_generate: 2 } } }],
        },
      }),
    );
    const run = (args: string[], env?: Record<string, string>) => inkwell([...args, '--data-dir', home], { env });

    const [withYaml, withEnvJson, defaults, human, created] = await Promise.all([
      run(['models', 'list', '--json', '--config', yaml]),
      run(['models', 'list', '--json'], { INKWELL_CONFIG: json }),
      run(['models', 'list', '--json']),
      run(['models', 'list']),
      run(['org', 'create', 'Dollar credits', '--credits', '1.5', '--config', yaml, '--json']),
    ]);
    type Listed = { id: string; pricing?: Record<string, string>; pricing_credits?: Record<string, number> };
    const byId = (result: CliResult) => {
      const list = okJson(result);
      assertMatches(ModelList, list, 'models list --json');
      return new Map((list.data as Listed[]).map((m) => [m.id, m]));
    };
    const yamlModels = byId(withYaml);
    assert.deepEqual([...yamlModels.keys()], ['inkwell-trace', 'inkwell-motion', 'local-svg', 'local-svg-hd', 'local-svg-metered', 'my-svg']);
    assert.deepEqual(yamlModels.get('my-svg')!.pricing_credits, { svg_generate: 3, svg_vectorize: 0, svg_edit: 5 });
    assert.deepEqual(yamlModels.get('my-svg')!.pricing, { svg_generate: '3.00', svg_vectorize: '0.00', svg_edit: '5.00' });
    assert.equal(yamlModels.get('local-svg')!.pricing!.svg_generate, '4.00', 'a credit is USD 1 with this config');
    assert.deepEqual([...byId(withEnvJson).keys()], ['only-one']);
    const defaultModels = byId(defaults);
    assert.ok(!defaultModels.has('my-svg'));
    assert.equal(defaultModels.get('local-svg')!.pricing!.svg_generate, '0.04');
    const rows = ok(human).trimEnd().split('\n');
    assert.match(rows[0]!, /^ID\s+ENGINE\s+BILLING\s+OPERATIONS\s+MAX_REFERENCES$/);
    assert.match(rows.find((r) => r.startsWith('local-svg-metered'))!, /^local-svg-metered\s+openai-compatible\s+token_usage\s/);

    const org = okJson(created);
    assert.equal(org.balance_credits, 1.5);
    const granted = okJson(await run(['credits', 'grant', '0.00001', '--org', org.id, '--config', yaml, '--json']));
    assert.deepEqual([granted.granted_credits, granted.balance_credits], [0.00001, 1.50001], 'one millicent is shown, not rounded away');
    const asDefault = okJson(await run(['credits', 'show', '--org', org.id, '--json']));
    assert.equal(asDefault.balance_credits, 150.001, '150 001 millicents are 150.001 credits of 1000 millicents');
  });

  it('limits set/show/clear override one organization; credits adjust corrects a balance in both directions', async () => {
    const home = workdir('limits');
    const dir = ['--data-dir', join(home, 'data')];
    const org = okJson(await inkwell(['org', 'create', 'Limited', '--credits', '10', '--json', ...dir]));
    okJson(await inkwell(['limits', 'set', 'requests.svg', '100', '30', '--org', org.id, '--json', ...dir]));
    okJson(await inkwell(['limits', 'set', 'outputs', 'off', '--org', org.id, '--json', ...dir]));
    const [shown, adjusted, badRule, badLimit] = await Promise.all([
      inkwell(['limits', 'show', '--org', org.id, '--json', ...dir]),
      inkwell(['credits', 'adjust', '-2.5', '--note', 'refund reversed', '--org', org.id, '--json', ...dir]),
      inkwell(['limits', 'set', 'bogus', '1', '--org', org.id, ...dir]),
      inkwell(['limits', 'set', 'requests.svg', '0', '--org', org.id, ...dir]),
    ]);
    const rules = Object.fromEntries(okJson(shown).limits.map((r: any) => [r.rule, r]));
    assert.deepEqual(rules['requests.svg'], { rule: 'requests.svg', dimension: 'request', limit: 100, window_seconds: 30, source: 'override' });
    assert.deepEqual(rules.outputs, { rule: 'outputs', dimension: 'operation', limit: null, window_seconds: null, source: 'override' });
    assert.deepEqual(rules['requests.edits'], { rule: 'requests.edits', dimension: 'request', limit: 20, window_seconds: 60, source: 'config' });
    assert.equal(okJson(adjusted).balance_credits, 7.5);
    fails(badRule, /unknown rule "bogus"/);
    fails(badLimit, /LIMIT must be a positive whole number/);

    okJson(await inkwell(['limits', 'clear', 'outputs', '--org', org.id, '--json', ...dir]));
    const [after, clearedTwice, ledger] = await Promise.all([
      inkwell(['limits', 'show', '--org', org.id, '--json', ...dir]),
      inkwell(['limits', 'clear', 'outputs', '--org', org.id, ...dir]),
      inkwell(['credits', 'show', '--org', org.id, '--json', ...dir]),
    ]);
    assert.equal(okJson(after).limits.find((r: any) => r.rule === 'outputs').source, 'config');
    fails(clearedTwice, /has no override of outputs/);
    const shownLedger = okJson(ledger);
    assert.equal(shownLedger.available_credits, 7.5);
    assert.equal(shownLedger.reserved_credits, 0);
    assert.deepEqual(shownLedger.entries.map((e: any) => [e.kind, e.credits]), [['adjustment', -2.5], ['grant', 10]]);
  });

  it('openapi takes the common options and --out', async () => {
    const home = workdir('openapi');
    const config = join(home, 'inkwell-test.json');
    writeFileSync(config, JSON.stringify({ log: { level: 'silent' } }));
    const out = join(home, 'openapi.json');
    const [printed, written, unwritable] = await Promise.all([
      inkwell(['openapi', '--json', '--config', config, '--data-dir', home]),
      inkwell(['openapi', '--out', out, '--data-dir', home], { env: { INKWELL_CONFIG: config } }),
      inkwell(['openapi', '--out', join(home, 'no-such-dir', 'openapi.json')]),
    ]);
    const document = okJson(printed);
    assert.equal(document.openapi, '3.1.0');
    assert.ok(document.paths['/v1/models']);
    assert.equal(ok(written), '');
    assert.equal(readFileSync(out, 'utf8'), printed.stdout);
    fails(unwritable, /^inkwell: cannot write .*no-such-dir.*: no such directory$/);
  });
});
