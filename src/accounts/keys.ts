import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  ADMIN_PERMISSIONS,
  KEY_PREFIX,
  PROJECT_CAPABILITIES,
  WILDCARD,
  type KeyEnvironment,
  type KeyKind,
} from '../contract/auth.ts';
import { newId } from '../contract/ids.ts';
import type { Repositories } from '../store/index.ts';
import type { ApiKeyRecord } from '../store/api-keys.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry 256 bits of entropy. */
const SECRET_LENGTH = 43;

export const KEY_PATTERN = /^sk_(test|live|admin)_[0-9A-Za-z]{43}$/;

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function prefixFor(kind: KeyKind, environment: KeyEnvironment | null): string {
  return kind === 'admin' ? KEY_PREFIX.admin : KEY_PREFIX[environment ?? 'test'];
}

/**
 * Keys have 256 random bits, so a plain SHA-256 is enough to store them safely. One-shot
 * `hash` (Node 20.12): every request hashes its key, and a Hash object costs three times more.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export interface NewKeySpec {
  organizationId: string;
  kind: KeyKind;
  /** Project keys only. */
  environment: KeyEnvironment | null;
  /** Capabilities (project) or permissions (admin), or ['*']. */
  scopes: string[];
  /** Allowed model ids, or ['*']. Project keys only. */
  models: string[];
  name?: string;
}

export class KeySpecError extends Error {
  override name = 'KeySpecError';
}

function checkSpec(spec: NewKeySpec): void {
  if (spec.kind === 'project' && spec.environment === null) throw new KeySpecError('a project key needs an environment: test or live');
  if (spec.kind === 'admin' && spec.environment !== null) throw new KeySpecError('an admin key has no environment');
  const known: readonly string[] = spec.kind === 'project' ? PROJECT_CAPABILITIES : ADMIN_PERMISSIONS;
  if (spec.scopes.length === 0) throw new KeySpecError(`a ${spec.kind} key needs at least one ${spec.kind === 'project' ? 'capability' : 'permission'}`);
  for (const scope of spec.scopes) {
    if (scope !== WILDCARD && !known.includes(scope)) {
      throw new KeySpecError(`unknown ${spec.kind === 'project' ? 'capability' : 'permission'} "${scope}" (expected ${[...known, WILDCARD].join(', ')})`);
    }
  }
  if (spec.kind === 'admin' && !(spec.models.length === 1 && spec.models[0] === WILDCARD) && spec.models.length > 0) {
    throw new KeySpecError('admin keys cannot run inference, so they take no model list');
  }
  if (spec.kind === 'project' && spec.models.length === 0) throw new KeySpecError('a project key needs at least one model, or *');
}

function normalized(values: string[]): string[] {
  return values.includes(WILDCARD) ? [WILDCARD] : [...new Set(values)].sort();
}

/** Creates a key; the secret is returned once and only its hash is stored. */
export async function createApiKey(store: Pick<Repositories, 'organizations' | 'apiKeys'>, spec: NewKeySpec, now = Date.now()): Promise<{ record: ApiKeyRecord; secret: string }> {
  checkSpec(spec);
  const organization = await store.organizations.get(spec.organizationId);
  if (!organization) throw new KeySpecError(`organization ${spec.organizationId} does not exist`);
  const secret = prefixFor(spec.kind, spec.environment) + randomBase62(SECRET_LENGTH);
  const record: ApiKeyRecord = {
    id: newId('apiKey', now),
    organization_id: spec.organizationId,
    kind: spec.kind,
    environment: spec.environment,
    secret_hash: hashSecret(secret),
    hint: `${secret.slice(0, secret.lastIndexOf('_') + 1)}…${secret.slice(-4)}`,
    name: spec.name ?? null,
    scopes: JSON.stringify(normalized(spec.scopes)),
    models: JSON.stringify(spec.kind === 'admin' ? [] : normalized(spec.models)),
    created_at: now,
    revoked_at: null,
  };
  await store.apiKeys.insert(record);
  return { record, secret };
}
