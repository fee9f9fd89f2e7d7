import type { FastifyInstance } from 'fastify';
import { ENDPOINTS, routePath } from '../../contract/endpoints.ts';
import type { OrganizationBalance } from '../../contract/balance.ts';
import { ApiError } from '../../contract/errors.ts';
import type { HttpDeps } from '../deps.ts';
import { principalOf } from '../auth.ts';
import { availableCredits } from '../../billing/credits.ts';

export function registerOrganizationRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const endpoint = ENDPOINTS.getOrganizationBalance;
  app.get(
    routePath(endpoint.path),
    { onRequest: deps.auth(endpoint.auth), schema: { response: { 200: endpoint.response } } },
    async (request): Promise<OrganizationBalance> => {
      const { organizationId } = principalOf(request);
      const organization = await deps.store.organizations.get(organizationId);
      if (!organization) throw new ApiError('unauthorized', { status: 401, message: 'The organization cannot be resolved.' });
      return {
        object: 'organization.balance',
        organization_id: organization.id,
        available_credits: availableCredits(organization, deps.millicentsPerCredit),
        observed_at: Math.floor(Date.now() / 1000),
      };
    },
  );
}
