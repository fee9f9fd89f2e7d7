import type { Command } from 'commander';
import { SETTINGS } from '../../config/settings.ts';
import type { RunningServer } from '../../main.ts';
import { configFrom } from '../context.ts';
import { cliIo } from '../io.ts';

/** The first-start secrets as one JSON line (serve --json), among the JSON log lines on stdout. */
function bootstrapJson(server: RunningServer, credits: number): string {
  const bootstrap = server.bootstrap!;
  return JSON.stringify({
    event: 'first_start',
    url: server.url,
    organization_id: bootstrap.organization.id,
    organization_name: bootstrap.organization.name,
    credits,
    keys: bootstrap.keys.map((k) => ({
      label: k.label,
      id: k.record.id,
      kind: k.record.kind,
      environment: k.record.environment,
      secret: k.secret,
    })),
  });
}

/** The shell variable the docs use for a key: SK_TEST, SK_LIVE or SK_ADMIN. */
function shellName(kind: string, environment: string | null): string {
  return kind === 'admin' ? 'SK_ADMIN' : `SK_${(environment ?? 'live').toUpperCase()}`;
}

function banner(server: RunningServer, credits: number): string {
  const bootstrap = server.bootstrap!;
  const width = Math.max(...bootstrap.keys.map((k) => k.label.length));
  const rule = '='.repeat(78);
  return [
    rule,
    `First start: created organization ${bootstrap.organization.id} ("${bootstrap.organization.name}") with ${credits} credits.`,
    'These keys are shown ONCE and will not be shown again. Store them somewhere safe now:',
    '',
    ...bootstrap.keys.map((k) => `  ${k.label.padEnd(width)}  ${k.secret}`),
    '',
    'To use them in this shell, paste:',
    ...bootstrap.keys.map((k) => `  export ${shellName(k.record.kind, k.record.environment)}=${k.secret}`),
    '',
    `Playground:  ${server.url}/      (paste a key; nothing is stored)`,
    `Reference:   ${server.url}/docs`,
    `Try:  curl -s ${server.url}/v1/models -H "Authorization: Bearer $SK_TEST"`,
    rule,
  ].join('\n');
}

export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description('Run the HTTP API (default http://127.0.0.1:8080, SQLite under ./data).')
    .option('--config <file>', 'config file, JSON or YAML (env INKWELL_CONFIG; default ./inkwell.config.{json,yaml,yml} if present)')
    .option('--json', 'print the first-start keys as one JSON line instead of the banner');
  for (const setting of SETTINGS) {
    command.option(
      `${setting.flag}${setting.argument ? ` ${setting.argument}` : ''}`,
      `${setting.description} [env ${setting.env}; config ${setting.path}]`,
    );
  }
  command.addHelpText(
    'after',
    '\nPrecedence: defaults < config file < environment < flags. The config file also holds the model\n' +
      'catalog (catalog.models) and data posture (data_posture.*); see README.md.',
  );
  command.action(async (options: Record<string, unknown>) => {
    const config = configFrom(options);
    // Loaded here, not at the top: the HTTP stack is only needed by this command.
    const { startServer } = await import('../../main.ts');
    const server = await startServer(config);
    if (server.bootstrap) {
      const credits = config.billing.starter_credits;
      cliIo().stdout.write(`${options.json ? bootstrapJson(server, credits) : banner(server, credits)}\n`);
    }

    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        server.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
        const force = setTimeout(() => {
          server.app.log.warn('shutdown grace period over; closing remaining connections');
          server.app.server.closeAllConnections();
        }, config.server.shutdown_grace_ms);
        force.unref();
        server.close().finally(() => {
          clearTimeout(force);
          resolve();
        });
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
  });
}
