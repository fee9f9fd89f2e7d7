import type { Store } from '../store/index.ts';
import type { ApiKeyRecord } from '../store/api-keys.ts';
import type { Organization } from '../store/organizations.ts';
import { createApiKey } from './keys.ts';
import { WILDCARD } from '../contract/auth.ts';

export interface BootstrapResult {
  organization: Organization;
  keys: { label: string; record: ApiKeyRecord; secret: string }[];
}

const BOOTSTRAP_MARK = 'bootstrapped_at';

/**
 * On the very first start of an empty database: one organization with starter credits, a test
 * key, a live key and an admin key. The mark is claimed in the same transaction, so this happens
 * once per database even when several replicas start together.
 */
export async function bootstrapIfFirstStart(store: Store, starterMillicents: number): Promise<BootstrapResult | undefined> {
  return store.transaction(async (tx) => {
    if (!(await tx.settings.claim(BOOTSTRAP_MARK, new Date().toISOString()))) return undefined;
    if ((await tx.organizations.list()).length > 0) return undefined;
    const organization = await tx.organizations.create('Default organization', starterMillicents);
    const all = [WILDCARD];
    const keys = [
      { label: 'Project key, test (sandbox)', spec: { kind: 'project', environment: 'test', name: 'default test' } },
      { label: 'Project key, live', spec: { kind: 'project', environment: 'live', name: 'default live' } },
      { label: 'Organization admin key', spec: { kind: 'admin', environment: null, name: 'default admin' } },
    ] as const;
    const created = [];
    for (const { label, spec } of keys) {
      const { record, secret } = await createApiKey(tx, {
        organizationId: organization.id,
        kind: spec.kind,
        environment: spec.environment,
        name: spec.name,
        scopes: all,
        models: spec.kind === 'admin' ? [] : all,
      });
      created.push({ label, record, secret });
    }
    return { organization, keys: created };
  });
}
