import type { ProviderRecord, SchemaRecord } from '@app/read-model';

const VENDOR_LABELS: Record<string, string> = {
  openai: 'OpenAI', anthropic: 'Anthropic', azure_openai: 'Azure OpenAI', mistral: 'Mistral AI', google: 'Google', ollama: 'Ollama',
};

/** A provider as the spec shows it; the vendor secret and base URL are never part of it. */
export const presentProvider = (p: ProviderRecord) => ({
  id: p.id,
  name: p.name,
  provider: p.provider,
  provider_label: VENDOR_LABELS[p.provider] ?? p.provider,
  model: p.model,
  model_label: p.model_label ?? p.model,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

export const presentSchema = (s: SchemaRecord) => ({
  id: s.id,
  name: s.name,
  fields: s.fields,
  created_at: s.created_at,
  updated_at: s.updated_at,
});
