import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { SUPPORTED_VENDORS, isSupportedVendor, vendorEndpoint } from '@app/ai-providers';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DIRECTORY, type Directory, type ProviderRecord, type SchemaRecord } from '@app/directory';
import type { ProviderResourceDto, SchemaResourceDto } from '../../catalog/catalog.dto';
import { presentProvider, presentSchema } from '../../catalog/catalog.presenters';
import { ApiError } from '../../http/api-error';
import { addError, type FieldErrors } from '../../http/validate-body';
import { asObject, requireString, requireUrl, validateSchemaFields, validateSchemaUniqueWith } from '../admin-validation';
import { failOnErrors, requireOrganization } from './organization-lookup';

const PROVIDER_KEY_RE = /^[a-z][a-z0-9_-]{1,49}$/;

/** Creates a schema, or replaces the one `schemaId` names (404 when there is none). */
export class PutSchema extends Command<SchemaResourceDto> {
  constructor(
    readonly organizationId: string,
    readonly body: unknown,
    readonly schemaId?: string,
  ) {
    super();
  }
}

@CommandHandler(PutSchema)
export class PutSchemaHandler implements ICommandHandler<PutSchema, SchemaResourceDto> {
  constructor(
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ organizationId, body, schemaId }: PutSchema): Promise<SchemaResourceDto> {
    await requireOrganization(this.directory, organizationId);
    const existing = schemaId ? await this.directory.getSchema(organizationId, schemaId) : null;
    if (schemaId && !existing) throw ApiError.notFound('schema');
    const errors: FieldErrors = {};
    const b = asObject(body);
    const name = requireString(b, 'name', errors, { shownAsName: true });
    const fields = validateSchemaFields(b.fields, errors);
    // The review calls it with the organization's webhook secret: the same rules as webhook URLs
    // (HTTPS in production, no literal non-public address; names are checked again at connect time).
    const validationUrl = requireUrl(b, 'validation_url', errors, this.config.production, this.config.webhooks.allowedAddresses);
    const uniqueWith = validateSchemaUniqueWith(b.unique_with, fields, errors);
    failOnErrors(errors);
    const now = new Date().toISOString();
    const schema: SchemaRecord = {
      id: existing?.id ?? randomUUID(),
      organization_id: organizationId,
      name: name!,
      fields: fields!,
      validation_url: validationUrl,
      ...(uniqueWith.length > 0 ? { unique_with: uniqueWith } : {}),
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await this.directory.putSchema(schema);
    return { data: presentSchema(schema) };
  }
}

export class DeleteSchema extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly schemaId: string,
  ) {
    super();
  }
}

@CommandHandler(DeleteSchema)
export class DeleteSchemaHandler implements ICommandHandler<DeleteSchema, void> {
  constructor(@Inject(DIRECTORY) private readonly directory: Directory) {}

  async execute({ organizationId, schemaId }: DeleteSchema): Promise<void> {
    if (!(await this.directory.deleteSchema(organizationId, schemaId))) throw ApiError.notFound('schema');
  }
}

/** Registers an AI provider, or replaces the one `providerId` names (404 when there is none). */
export class PutProvider extends Command<ProviderResourceDto> {
  constructor(
    readonly organizationId: string,
    readonly body: unknown,
    readonly providerId?: string,
  ) {
    super();
  }
}

@CommandHandler(PutProvider)
export class PutProviderHandler implements ICommandHandler<PutProvider, ProviderResourceDto> {
  constructor(
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ organizationId, body, providerId }: PutProvider): Promise<ProviderResourceDto> {
    await requireOrganization(this.directory, organizationId);
    const existing = providerId ? await this.directory.getProvider(organizationId, providerId) : null;
    if (providerId && !existing) throw ApiError.notFound('provider');
    const errors: FieldErrors = {};
    const b = asObject(body);
    const name = requireString(b, 'name', errors, { shownAsName: true });
    const provider = requireString(b, 'provider', errors, { max: 50 });
    if (provider && (!PROVIDER_KEY_RE.test(provider) || !isSupportedVendor(provider))) {
      addError(errors, 'provider', `The provider field must be one of: ${Object.keys(SUPPORTED_VENDORS).join(', ')}.`);
    }
    const model = requireString(b, 'model', errors, { shownAsName: true });
    const modelLabel = requireString(b, 'model_label', errors, { optional: true, shownAsName: true });
    const apiKey = requireString(b, 'api_key', errors, { optional: true, max: 4096 });
    // The same rules as webhooks: HTTPS in production, no literal non-public address or localhost
    // (AI_ALLOWED_ADDRESSES excepted); names are checked on their resolved address at each call.
    const baseUrl = requireUrl(b, 'base_url', errors, this.config.production, this.config.ai.allowedAddresses);
    // The vendor's secret belongs in api_key, which is sealed and never shown: a URL is shown to every member.
    if (baseUrl && hasUserInfo(baseUrl))
      addError(errors, 'base_url', "The base url field must not hold a user name or password: give the vendor's key as api_key.");
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
    failOnErrors(errors);
    const now = new Date().toISOString();
    const record: ProviderRecord = {
      id: existing?.id ?? randomUUID(),
      organization_id: organizationId,
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
}

export class DeleteProvider extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly providerId: string,
  ) {
    super();
  }
}

@CommandHandler(DeleteProvider)
export class DeleteProviderHandler implements ICommandHandler<DeleteProvider, void> {
  constructor(@Inject(DIRECTORY) private readonly directory: Directory) {}

  async execute({ organizationId, providerId }: DeleteProvider): Promise<void> {
    if (!(await this.directory.deleteProvider(organizationId, providerId))) throw ApiError.notFound('provider');
  }
}

const hasUserInfo = (url: string): boolean => {
  const parsed = new URL(url);
  return parsed.username !== '' || parsed.password !== '';
};
