import type { Model, Operation, SvgOperation } from '../contract/models.ts';
import { ConfigError } from './load.ts';
import type { CatalogEntry, Config } from './schema.ts';

/** One model as the service knows it: its config entry and its wire Model object. */
export interface CatalogModel {
  entry: CatalogEntry;
  model: Model;
  supports(operation: Operation): boolean;
  /** Credits per delivered output for a fixed-credit model; undefined for token-priced ones. */
  creditsFor(operation: SvgOperation): number | undefined;
}

/** USD string of a credit amount, from integer millicents (1 USD = 100 000 millicents). */
export function creditsToUsd(credits: number, millicentsPerCredit: number): string {
  const millicents = BigInt(credits) * BigInt(millicentsPerCredit);
  const whole = millicents / 100_000n;
  const fraction = (millicents % 100_000n).toString().padStart(5, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${whole}.${fraction}`;
}

function toModel(entry: CatalogEntry, millicentsPerCredit: number): Model {
  const model: Model = {
    id: entry.id,
    object: 'model',
    created: entry.created,
    owned_by: entry.owned_by,
    billing:
      entry.billing.kind === 'fixed_credit'
        ? { kind: 'fixed_credit', unit: 'credits_per_output' }
        : {
            kind: 'token_usage',
            currency: 'USD',
            pricing_model: 'token_usage_v1',
            unit: 'millicents_per_million_tokens',
            rates: { ...entry.billing.rates },
          },
  };
  if (entry.name !== undefined) model.name = entry.name;
  if (entry.description !== undefined) model.description = entry.description;
  if (entry.context_length !== undefined) model.context_length = entry.context_length;
  if (entry.max_output_length !== undefined) model.max_output_length = entry.max_output_length;
  if (entry.input_modalities) model.input_modalities = [...entry.input_modalities];
  if (entry.output_modalities) model.output_modalities = [...entry.output_modalities];
  model.supported_operations = [...entry.operations];
  if (entry.supported_sampling_parameters) model.supported_sampling_parameters = [...entry.supported_sampling_parameters];
  if (entry.billing.kind === 'fixed_credit') {
    const credits = entry.billing.credits;
    const usd = (value: number) => creditsToUsd(value, millicentsPerCredit);
    model.pricing_credits = { svg_generate: credits.svg_generate ?? 0, svg_vectorize: credits.svg_vectorize ?? 0 };
    model.pricing = { svg_generate: usd(credits.svg_generate ?? 0), svg_vectorize: usd(credits.svg_vectorize ?? 0) };
    for (const op of ['svg_edit', 'svg_animate'] as const) {
      if (credits[op] !== undefined) {
        model.pricing_credits[op] = credits[op];
        model.pricing[op] = usd(credits[op]);
      }
    }
  }
  return model;
}

export class Catalog {
  private readonly byId = new Map<string, CatalogModel>();

  constructor(entries: CatalogEntry[], millicentsPerCredit: number) {
    for (const entry of entries) {
      const operations = new Set<Operation>(entry.operations);
      this.byId.set(entry.id, {
        entry,
        model: toModel(entry, millicentsPerCredit),
        supports: (operation) => operations.has(operation),
        creditsFor: (operation) =>
          entry.billing.kind === 'fixed_credit' ? (entry.billing.credits[operation] ?? 0) : undefined,
      });
    }
  }

  private visible(model: CatalogModel, organizationId: string): boolean {
    return !model.entry.organizations || model.entry.organizations.includes(organizationId);
  }

  /** Models the organization may see, in catalog order. */
  list(organizationId: string): CatalogModel[] {
    return [...this.byId.values()].filter((model) => this.visible(model, organizationId));
  }

  find(id: string, organizationId: string): CatalogModel | undefined {
    const model = this.byId.get(id);
    return model && this.visible(model, organizationId) ? model : undefined;
  }

  all(): CatalogModel[] {
    return [...this.byId.values()];
  }
}

/**
 * Built-in entries first; a configured entry with the same id replaces the built-in one. An
 * entry that lists open_responses must be token-priced: each Responses request is metered and
 * billed by its tokens (spec rule 6), and a fixed-credit entry has no price for it. Fallbacks
 * name other entries of the catalog (only an entry's own list is tried: they do not chain).
 */
export function buildCatalog(config: Config, builtin: CatalogEntry[]): Catalog {
  const entries = new Map<string, CatalogEntry>();
  if (config.catalog.include_builtin) for (const entry of builtin) entries.set(entry.id, entry);
  for (const entry of config.catalog.models) entries.set(entry.id, entry);
  for (const entry of entries.values()) {
    if (entry.operations.includes('open_responses') && entry.billing.kind !== 'token_usage') {
      throw new ConfigError(
        `Model ${entry.id} lists open_responses but is billed ${entry.billing.kind}: Responses are billed by measured tokens, so give it billing: { kind: token_usage, rates: … } or remove open_responses from its operations.`,
      );
    }
    for (const fallback of entry.fallbacks ?? []) {
      if (fallback === entry.id) throw new ConfigError(`Model ${entry.id} names itself in fallbacks; list other catalog entries.`);
      if (!entries.has(fallback)) throw new ConfigError(`Model ${entry.id} names fallback '${fallback}', which is not in the catalog.`);
    }
  }
  return new Catalog([...entries.values()], config.billing.millicents_per_credit);
}
