import { WILDCARD, type AuthRequirement, type KeyEnvironment, type KeyKind } from '../contract/auth.ts';
import { ApiError } from '../contract/errors.ts';
import type { Store } from '../store/index.ts';
import type { OrganizationStatus } from '../store/tables.ts';
import { hashesEqual, hashSecret, KEY_PATTERN } from './keys.ts';

/** Who is calling: resolved from the bearer key on every request. */
export interface Principal {
  keyId: string;
  organizationId: string;
  /** The organization's status when the key was read (this request). */
  organizationStatus: OrganizationStatus;
  kind: KeyKind;
  environment: KeyEnvironment | null;
  scopes: ReadonlySet<string>;
  /** Allowed model ids, or '*' for all. */
  models: ReadonlySet<string> | typeof WILDCARD;
}

const invalidKey = (message: string) => new ApiError('invalid_api_key', { message });

/** The bearer token of an Authorization header, or undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

/**
 * Resolves the key to a principal. Missing, malformed, unknown and revoked keys are 401
 * invalid_api_key; a key whose organization cannot be resolved for billing is 401 unauthorized.
 * The key is read from the store on every request, so revocation applies to the next request.
 */
export async function authenticate(store: Store, authorization: string | undefined): Promise<Principal> {
  const token = bearerToken(authorization);
  if (token === undefined) throw invalidKey('Missing API key. Send it as "Authorization: Bearer <API_KEY>".');
  if (token === '' || !KEY_PATTERN.test(token)) {
    throw invalidKey('Malformed API key. Keys look like sk_test_…, sk_live_… or sk_admin_….');
  }
  const hash = hashSecret(token);
  const key = await store.apiKeys.findBySecretHash(hash);
  if (!key || !hashesEqual(key.secret_hash, hash)) throw invalidKey('Incorrect API key provided.');
  if (key.revoked_at !== null) throw invalidKey('This API key has been revoked.');
  if (key.organization_status === null || key.organization_status === 'closed') {
    throw new ApiError('unauthorized', {
      status: 401,
      message: 'The organization of this API key cannot be resolved for billing.',
    });
  }
  const models = JSON.parse(key.models) as string[];
  return {
    keyId: key.id,
    organizationId: key.organization_id,
    organizationStatus: key.organization_status,
    kind: key.kind as KeyKind,
    environment: key.environment as KeyEnvironment | null,
    scopes: new Set(JSON.parse(key.scopes) as string[]),
    models: models.includes(WILDCARD) ? WILDCARD : new Set(models),
  };
}

function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopes.has(WILDCARD) || principal.scopes.has(scope);
}

/** Enforces an endpoint's auth rule; a key of the wrong kind or scope is 403 unauthorized. */
export function authorize(principal: Principal, requirement: AuthRequirement): void {
  if (requirement.kind === 'public') return;
  if (requirement.kind === 'admin') {
    if (principal.kind !== 'admin') {
      throw new ApiError('unauthorized', { message: 'This endpoint requires an organization admin key (sk_admin_…).' });
    }
    if (!hasScope(principal, requirement.permission)) {
      throw new ApiError('unauthorized', { message: `This admin key lacks the '${requirement.permission}' permission.` });
    }
    return;
  }
  if (principal.kind !== 'project') {
    throw new ApiError('unauthorized', {
      message: 'Organization admin keys cannot run inference or read the catalog; use a project key.',
    });
  }
  if (requirement.sandbox === 'not_found' && principal.environment === 'test') {
    throw new ApiError('invalid_request', { status: 404, message: 'The sandbox does not serve this endpoint; use a live key.' });
  }
  if (!hasScope(principal, requirement.capability)) {
    throw new ApiError('unauthorized', { message: `This API key lacks the '${requirement.capability}' capability.` });
  }
}

export function allowsModel(principal: Principal, modelId: string): boolean {
  return principal.models === WILDCARD || principal.models.has(modelId);
}
