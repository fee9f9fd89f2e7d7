// Who may call what: key kinds, environments, capabilities and permissions.

export const KEY_KINDS = ['project', 'admin'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

export const KEY_ENVIRONMENTS = ['test', 'live'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

/** Project keys carry capabilities; `*` on a project key grants these and nothing more. */
export const PROJECT_CAPABILITIES = ['svg_generate', 'svg_vectorize', 'svg_edit', 'svg_animate', 'catalog_read'] as const;
export type ProjectCapability = (typeof PROJECT_CAPABILITIES)[number];

/** Organization admin keys carry permissions; `*` grants all of them. */
export const ADMIN_PERMISSIONS = ['billing_read'] as const;
export type AdminPermission = (typeof ADMIN_PERMISSIONS)[number];

export const WILDCARD = '*';

export const KEY_PREFIX = { test: 'sk_test_', live: 'sk_live_', admin: 'sk_admin_' } as const;

export type AuthRequirement =
  | { kind: 'public' }
  | { kind: 'project'; capability: ProjectCapability; sandbox: 'serve' | 'not_found' }
  | { kind: 'admin'; permission: AdminPermission };
