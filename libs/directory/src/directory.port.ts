import type { FieldDefinition, MappingRule } from '@app/contracts';

/** One page of a list, with the number of items in the whole list. */
export interface Page<T> {
  items: T[];
  total: number;
}

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
  /**
   * The first 8 characters after `tsk_`, kept so that people can tell keys apart in a list
   * (48 of the key's 256 random bits). Null for keys issued before prefixes were kept.
   */
  prefix: string | null;
  /**
   * What its people call the key ("billing export", "staging"), given when it is issued (up to 100
   * characters). Null: unnamed. May be absent in records read by hash (the per-request look-up has no use for it).
   */
  name?: string | null;
  created_at: string;
  revoked_at: string | null;
  /** When the key last authenticated a request (to the minute; null: never). Absent in records read before it existed. */
  last_used_at?: string | null;
}

/** A key as it may be listed: everything but the hash. */
export type ApiKeySummary = Omit<ApiKeyRecord, 'key_hash'>;

/**
 * What an `Idempotency-Key` bought: the first request of an organization with a key
 * claims it (pending, under a lock); its answer is kept (completed) and replayed to
 * retries with the same request until `expires_at`.
 */
export interface IdempotencyRecord {
  organization_id: string;
  /** The caller's Idempotency-Key (1 to 255 printable ASCII characters). */
  key: string;
  /** SHA-256 of the request (method, path and canonical body): the key answers only this request. */
  request_hash: string;
  /** Id of what the request creates (a run), chosen at the first claim and kept by every retry. */
  resource_id: string;
  state: 'pending' | 'completed';
  /** Who holds a pending claim (random per claim) and until when; a lapsed claim may be taken over. */
  lock_token: string | null;
  locked_until: string | null;
  /**
   * The process holding a pending claim: its instance name (INSTANCE_ID or the host name,
   * stable across restarts, different per replica) and its incarnation (random per start).
   * A claim of the same instance under another incarnation was held by a process that has
   * died since (its instance was started again): it is taken over at once, as leases are.
   * Null on records from before holders were recorded.
   */
  lock_instance: string | null;
  lock_incarnation: string | null;
  /** The first answer, once completed (the body as JSON text). */
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

/**
 * Whether the claim on a pending record may be taken over by `candidate` at `now`: its lock
 * was lifted or lapsed, or its holder died (the same instance runs under another incarnation
 * now: a process restarted under its name takes back what its predecessor held, as with leases).
 */
export const idempotencyLockFree = (live: IdempotencyRecord, candidate: IdempotencyRecord, now: string): boolean =>
  live.locked_until === null ||
  live.locked_until <= now ||
  (candidate.lock_instance !== null &&
    live.lock_instance === candidate.lock_instance &&
    live.lock_incarnation !== candidate.lock_incarnation);

export type IdempotencyClaim =
  /** The caller holds the key now (a new record, or a pending one whose lock had lapsed). */
  | { claimed: true; record: IdempotencyRecord }
  /** Someone else's live record, unchanged. */
  | { claimed: false; record: IdempotencyRecord };

/** Idempotency keys of the public POSTs, kept with the directory so that a restart keeps them. */
export interface IdempotencyStore {
  /**
   * Atomically claims `candidate.key` for `candidate.organization_id`. It succeeds when the
   * organization has no live record for the key (none, or one whose `expires_at` is at or
   * before `now`: it is replaced), and when the live record is pending with the same
   * `request_hash` and a lock that lapsed (`locked_until` null or at or before `now`) or whose
   * holder died (`lock_instance` is the candidate's and `lock_incarnation` is not: that
   * instance was started again since): that record is then locked with the candidate's
   * `lock_token`, `locked_until`, `lock_instance` and `lock_incarnation` and keeps everything
   * else (its `resource_id` above all). Otherwise the live record is returned.
   */
  claimIdempotencyKey(candidate: IdempotencyRecord, now: string): Promise<IdempotencyClaim>;
  /** Stores the answer of the claim holding `lockToken`; false when that claim no longer holds the key. */
  completeIdempotencyKey(
    organizationId: string,
    key: string,
    lockToken: string,
    response: { status: number; body: string },
  ): Promise<boolean>;
  /**
   * Ends the claim holding `lockToken` without an answer: `forget` deletes the record (nothing
   * was created, the key is free again), otherwise only the lock is lifted (a retry takes over).
   */
  releaseIdempotencyKey(organizationId: string, key: string, lockToken: string, forget: boolean): Promise<void>;
}

export interface SchemaRecord {
  id: string;
  organization_id: string;
  name: string;
  fields: Record<string, FieldDefinition>;
  /** The customer's validation hook (docs/validation-hook.md); absent or null: none. */
  validation_url?: string | null;
  /** Sets of fields whose values must be unique together (absent when none). */
  unique_with?: string[][];
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
 * A confirmed mapping, remembered for the next run of the same organization and schema
 * whose source has the same set of headers (docs/review-page.md, "Remembered mappings").
 */
export interface RememberedMapping {
  organization_id: string;
  schema_id: string;
  /** Names the set of source headers, whatever their order (headersKey in @app/domain). */
  headers_key: string;
  mapping_rule: MappingRule;
  /** Picklist value mappings, by field. */
  picklists: Record<string, Record<string, string>>;
  /** The reviewer's header choice (absent in mappings remembered before it existed: the ingestion's guess stands). */
  input_has_header?: boolean;
  /** The run whose approval this was, and when. */
  run_id: string;
  approved_at: string;
}

/**
 * Organizations and what they own: the service's configuration ("the dashboard").
 * Kept out of the event streams on purpose: its records carry secrets, and run events
 * are published to downstream teams.
 */
export interface Directory extends IdempotencyStore {
  createOrganization(org: Organization): Promise<void>;
  getOrganization(id: string): Promise<Organization | null>;
  updateOrganization(id: string, patch: Partial<Omit<Organization, 'id' | 'created_at'>>): Promise<Organization | null>;

  addApiKey(key: ApiKeyRecord): Promise<void>;
  /** Revokes a key of the organization; false when there is no such live key. */
  revokeApiKey(organizationId: string, keyId: string, at: string): Promise<boolean>;
  /** The live key with this hash, with its organization. */
  findApiKey(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Every key of the organization, revoked ones too, oldest first; never a hash. */
  listApiKeys(organizationId: string): Promise<ApiKeySummary[]>;
  /** Records that the key was used at `at` (never moves the time backwards). */
  touchApiKey(organizationId: string, keyId: string, at: string): Promise<void>;

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

  /** Keeps the mapping for its organization, schema and headers, unless a later approval is already kept. */
  rememberMapping(mapping: RememberedMapping): Promise<void>;
  findRememberedMapping(organizationId: string, schemaId: string, headersKey: string): Promise<RememberedMapping | null>;
}

export const DIRECTORY = Symbol('DIRECTORY');
