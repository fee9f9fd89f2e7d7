import { Type, type Static } from '@sinclair/typebox';

export const OrganizationBalance = Type.Object(
  {
    object: Type.Literal('organization.balance'),
    organization_id: Type.String({ minLength: 1 }),
    available_credits: Type.Number({
      minimum: 0,
      description: 'Credits spendable now (open reservations excluded), with at most 3 decimals.',
    }),
    observed_at: Type.Integer({ minimum: 0, description: 'Unix seconds.' }),
  },
  { additionalProperties: false, title: 'OrganizationBalance' },
);
export type OrganizationBalance = Static<typeof OrganizationBalance>;
