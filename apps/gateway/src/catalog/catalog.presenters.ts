import { SUPPORTED_VENDORS } from '@app/ai-providers';
import type { ProviderRecord, SchemaRecord } from '@app/directory';

/** A provider as the spec shows it; the vendor secret and base URL are never part of it. */
export const presentProvider = (p: ProviderRecord) => ({
  id: p.id,
  name: p.name,
  provider: p.provider,
  provider_label: SUPPORTED_VENDORS[p.provider] ?? p.provider,
  model: p.model,
  model_label: p.model_label ?? p.model,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

export const presentSchema = (s: SchemaRecord) => ({
  id: s.id,
  name: s.name,
  fields: s.fields,
  // Only when the schema names one: a schema without a hook is the spec's resource exactly.
  ...(s.validation_url ? { validation_url: s.validation_url } : {}),
  // Only when the schema has sets: a schema without them is the spec's resource exactly.
  ...(s.unique_with?.length ? { unique_with: s.unique_with } : {}),
  created_at: s.created_at,
  updated_at: s.updated_at,
});
