import { ApiError, type ErrorCode } from '../contract/errors.ts';
import type { OrganizationStatus } from '../store/tables.ts';
import type { Principal } from './principal.ts';

/** Organization states that stop live billing, and the 402 each answers with. */
const FUNDING_CODES: Partial<Record<OrganizationStatus, ErrorCode>> = {
  funding_pending: 'funding_pending',
  payment_method_required: 'funding_payment_method_required',
  payment_action_required: 'funding_payment_action_required',
  payment_failed: 'funding_payment_failed',
};

/**
 * Refuses work for an organization that may not run it: a frozen organization gets 403
 * account_frozen on every key; a funding problem gets its 402 on live keys only, since test
 * keys never touch the balance. (A closed organization never authenticates.)
 */
export function assertInGoodStanding(principal: Principal): void {
  const status = principal.organizationStatus;
  if (status === 'frozen') {
    throw new ApiError('account_frozen', { message: 'This organization is frozen; contact the operator of this service.' });
  }
  const funding = FUNDING_CODES[status];
  if (funding && principal.environment === 'live') throw new ApiError(funding);
}
