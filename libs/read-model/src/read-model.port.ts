import type { FieldDefinition } from '@app/contracts';
import type { RunState } from '@app/domain';

export interface Page<T> {
  items: T[];
  total: number;
}

/**
 * Runs as the projector folded them. Each document remembers the stream revision it
 * applied, and the projector's checkpoint is written in the same transaction as the
 * document, so replaying events leaves the same read model.
 */
export interface RunReadModel {
  getRun(runId: string): Promise<RunState | null>;
  /** Writes the run and the projector's checkpoint atomically. Checkpoints never move backwards. */
  saveRun(run: RunState, checkpoint: { name: string; position: number }): Promise<void>;
  /** Advances a checkpoint alone (for events that change no document). */
  saveCheckpoint(name: string, position: number): Promise<void>;
  checkpoint(name: string): Promise<number>;
  /** Removes every run document and the checkpoints named `name` or `name@<lane>` (before a rebuild). */
  reset(name: string): Promise<void>;
  /** Ids of runs with a webhook attempt due at or before `now` (webhook_due_at), earliest first. */
  listDueWebhooks(now: string, limit: number): Promise<string[]>;
  /**
   * Ids of runs still waiting for their file whose upload window ends after `since`
   * (uploads that go straight to a bucket are found by looking), oldest window first.
   */
  listAwaitingUpload(since: string, limit: number): Promise<string[]>;
}

/** Until when a run's upload is worth looking for: its upload window while it waits for one. */
export const uploadWatchUntil = (run: RunState): string | null =>
  run.status === 'awaiting_upload' && !run.source_uploaded ? run.upload_expires_at : null;

export interface Organization {
  id: string;
  name: string;
  webhook_url: string | null;
  webhook_secret: string;
  /** null: unlimited. */
  review_preparation_quota: number | null;
  review_preparations_used: number;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyRecord {
  id: string;
  organization_id: string;
  /** SHA-256 of the key; the key itself is never stored. */
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface SchemaRecord {
  id: string;
  organization_id: string;
  name: string;
  fields: Record<string, FieldDefinition>;
  created_at: string;
  updated_at: string;
}

export interface ProviderRecord {
  id: string;
  organization_id: string;
  name: string;
  provider: string;
  model: string;
  model_label: string | null;
  /** The vendor secret; never returned by any API. */
  api_key: string | null;
  base_url: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Organizations and what they own: the service's configuration ("the dashboard").
 * Kept out of the event streams on purpose: its records carry secrets, and run events
 * are published to downstream teams.
 */
export interface Directory {
  createOrganization(org: Organization): Promise<void>;
  getOrganization(id: string): Promise<Organization | null>;
  updateOrganization(id: string, patch: Partial<Omit<Organization, 'id' | 'created_at'>>): Promise<Organization | null>;

  addApiKey(key: ApiKeyRecord): Promise<void>;
  /** Revokes a key of the organization; false when there is no such live key. */
  revokeApiKey(organizationId: string, keyId: string, at: string): Promise<boolean>;
  /** The live key with this hash, with its organization. */
  findApiKey(keyHash: string): Promise<ApiKeyRecord | null>;

  /**
   * Takes one review-preparation unit of the organization's quota for a run, atomically
   * and at most once per run: `consumed` (now), `already` (this run had taken it),
   * `exhausted` (none left; nothing taken). Unlimited quota (null) always consumes.
   */
  consumeReviewPreparation(organizationId: string, runId: string): Promise<'consumed' | 'already' | 'exhausted' | 'no_organization'>;

  putSchema(schema: SchemaRecord): Promise<void>;
  getSchema(organizationId: string, id: string): Promise<SchemaRecord | null>;
  listSchemas(organizationId: string, offset: number, limit: number): Promise<Page<SchemaRecord>>;
  deleteSchema(organizationId: string, id: string): Promise<boolean>;

  putProvider(provider: ProviderRecord): Promise<void>;
  getProvider(organizationId: string, id: string): Promise<ProviderRecord | null>;
  listProviders(organizationId: string, offset: number, limit: number): Promise<Page<ProviderRecord>>;
  deleteProvider(organizationId: string, id: string): Promise<boolean>;
}

export const RUN_READ_MODEL = Symbol('RUN_READ_MODEL');
export const DIRECTORY = Symbol('DIRECTORY');
