import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { SUPPORTED_VENDORS, isSupportedVendor, vendorEndpoint } from '@app/ai-providers';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DIRECTORY, type Directory, type Organization, type ProviderRecord, type SchemaRecord } from '@app/read-model';
import { presentProvider, presentSchema } from '../catalog/catalog.presenters';
import { ApiError } from '../http/api-error';
import { newApiKey } from '../http/api-key';
import type { FieldErrors } from '../http/validate-body';
import { addError } from '../http/validate-body';
import { asObject, requireString, requireUrl, validateSchemaFields } from './admin-validation';

/** Standard Webhooks secret format: `whsec_` + base64 of 24 random bytes (the HMAC key is the decoded bytes). */
const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const PROVIDER_KEY_RE = /^[a-z][a-z0-9_-]{1,49}$/;
/** What a key list shows of a key: the 8 characters after `tsk_` (48 of its 256 random bits). */
const apiKeyPrefix = (key: string): string => key.slice('tsk_'.length, 'tsk_'.length + 8);

/** The spec's "dashboard": organizations, keys, webhook settings, schemas, providers, quota. */
@Injectable()
export class AdminService {
  constructor(
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private fail(errors: FieldErrors): void {
    if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
  }

  private async org(id: string): Promise<Organization> {
    const org = await this.directory.getOrganization(id);
    if (!org) throw ApiError.notFound('organization');
    return org;
  }

  async createOrganization(body: unknown) {
    const errors: FieldErrors = {};
    const b = asObject(body, errors);
    const name = requireString(b, 'name', errors);
    const webhookUrl = requireUrl(b, 'webhook_url', errors, this.config.production, this.config.webhooks.allowedAddresses);
    this.fail(errors);
    const now = new Date().toISOString();
    const org: Organization = {
      id: randomUUID(),
      name: name!,
      webhook_url: webhookUrl,
      webhook_secret: newWebhookSecret(),
      review_preparation_quota: null,
      review_preparations_used: 0,
      created_at: now,
      updated_at: now,
    };
    await this.directory.createOrganization(org);
    const key = await this.issueKey(org.id);
    return {
      id: org.id,
      name: org.name,
      api_key: key.api_key,
      // The first key's id, so that it can be revoked like any other.
      api_key_id: key.id,
      webhook_secret: org.webhook_secret,
      webhook_url: org.webhook_url,
    };
  }

  async issueKey(orgId: string) {
    await this.org(orgId);
    const key = newApiKey();
    await this.directory.addApiKey({
      id: key.id,
      organization_id: orgId,
      key_hash: key.hash,
      prefix: apiKeyPrefix(key.key),
      created_at: new Date().toISOString(),
      revoked_at: null,
    });
    return { id: key.id, api_key: key.key };
  }

  /** Every key of the organization, revoked ones too, oldest first: ids and prefixes, never a secret or a hash. */
  async listKeys(orgId: string) {
    await this.org(orgId);
    const keys = await this.directory.listApiKeys(orgId);
    return { data: keys.map((k) => ({ id: k.id, prefix: k.prefix, created_at: k.created_at, revoked_at: k.revoked_at })) };
  }

  async revokeKey(orgId: string, keyId: string): Promise<void> {
    await this.org(orgId);
    if (!(await this.directory.revokeApiKey(orgId, keyId, new Date().toISOString()))) throw ApiError.notFound('API key');
  }

  async setWebhook(orgId: string, body: unknown) {
    await this.org(orgId);
    const errors: FieldErrors = {};
    const b = asObject(body, errors);
    if (!('url' in b)) addError(errors, 'url', 'The url field is required (null removes the default webhook).');
    const url = requireUrl(b, 'url', errors, this.config.production, this.config.webhooks.allowedAddresses);
    this.fail(errors);
    const org = await this.directory.updateOrganization(orgId, { webhook_url: url });
    return { webhook_url: org!.webhook_url };
  }

  async rotateWebhookSecret(orgId: string) {
    // The current secret is not read first: this also recovers an organization whose stored
    // secret no longer decrypts (its SECRETS_KEY lost; docs/security.md).
    const org = await this.directory.updateOrganization(orgId, { webhook_secret: newWebhookSecret() });
    if (!org) throw ApiError.notFound('organization');
    return { webhook_secret: org.webhook_secret };
  }

  async setQuota(orgId: string, body: unknown) {
    await this.org(orgId);
    const errors: FieldErrors = {};
    const b = asObject(body, errors);
    const n = b.review_preparations;
    if (!('review_preparations' in b) || (n !== null && (!Number.isSafeInteger(n) || (n as number) < 0))) {
      addError(errors, 'review_preparations', 'The review preparations field must be a non-negative integer or null (unlimited).');
    }
    this.fail(errors);
    const org = await this.directory.updateOrganization(orgId, { review_preparation_quota: n as number | null });
    return { review_preparations: org!.review_preparation_quota, used: org!.review_preparations_used };
  }

  async putSchema(orgId: string, body: unknown, schemaId?: string) {
    await this.org(orgId);
    const existing = schemaId ? await this.directory.getSchema(orgId, schemaId) : null;
    if (schemaId && !existing) throw ApiError.notFound('schema');
    const errors: FieldErrors = {};
    const b = asObject(body, errors);
    const name = requireString(b, 'name', errors);
    const fields = validateSchemaFields(b.fields, errors);
    this.fail(errors);
    const now = new Date().toISOString();
    const schema: SchemaRecord = {
      id: existing?.id ?? randomUUID(),
      organization_id: orgId,
      name: name!,
      fields: fields!,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await this.directory.putSchema(schema);
    return { data: presentSchema(schema) };
  }

  async deleteSchema(orgId: string, id: string): Promise<void> {
    if (!(await this.directory.deleteSchema(orgId, id))) throw ApiError.notFound('schema');
  }

  async putProvider(orgId: string, body: unknown, providerId?: string) {
    await this.org(orgId);
    const existing = providerId ? await this.directory.getProvider(orgId, providerId) : null;
    if (providerId && !existing) throw ApiError.notFound('provider');
    const errors: FieldErrors = {};
    const b = asObject(body, errors);
    const name = requireString(b, 'name', errors);
    const provider = requireString(b, 'provider', errors, { max: 50 });
    if (provider && (!PROVIDER_KEY_RE.test(provider) || !isSupportedVendor(provider))) {
      addError(errors, 'provider', `The provider field must be one of: ${Object.keys(SUPPORTED_VENDORS).join(', ')}.`);
    }
    const model = requireString(b, 'model', errors);
    const modelLabel = requireString(b, 'model_label', errors, { optional: true });
    const apiKey = requireString(b, 'api_key', errors, { optional: true, max: 4096 });
    // The same rules as webhooks: HTTPS in production, no literal non-public address or localhost
    // (AI_ALLOWED_ADDRESSES excepted); names are checked on their resolved address at each call.
    const baseUrl = requireUrl(b, 'base_url', errors, this.config.production, this.config.ai.allowedAddresses);
    // A stored key is only ever sent where it was registered for: a new address needs the key again.
    if (existing?.api_key && apiKey === null && provider && !errors.base_url) {
      if (vendorEndpoint(provider, baseUrl) !== vendorEndpoint(existing.provider, existing.base_url)) {
        addError(
          errors,
          'api_key',
          'The api key field is required when the base url or the provider changes: the stored key is never sent to a new address.',
        );
      }
    }
    this.fail(errors);
    const now = new Date().toISOString();
    const record: ProviderRecord = {
      id: existing?.id ?? randomUUID(),
      organization_id: orgId,
      name: name!,
      provider: provider!,
      model: model!,
      model_label: modelLabel,
      api_key: apiKey ?? existing?.api_key ?? null,
      base_url: baseUrl,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await this.directory.putProvider(record);
    return { data: presentProvider(record) };
  }

  async deleteProvider(orgId: string, id: string): Promise<void> {
    if (!(await this.directory.deleteProvider(orgId, id))) throw ApiError.notFound('provider');
  }
}
