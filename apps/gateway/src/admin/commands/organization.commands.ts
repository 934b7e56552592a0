import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { DIRECTORY, type Directory, type Organization } from '@app/directory';
import { ApiError } from '../../http/api-error';
import { addError, type FieldErrors } from '../../http/validate-body';
import { asObject, requireString, requireUrl } from '../admin-validation';
import type { CreatedOrganizationDto, QuotaDto, WebhookSecretDto, WebhookSettingsDto } from '../admin.dto';
import { IssueApiKey } from './api-key.commands';
import { failOnErrors, requireOrganization } from './organization-lookup';

/** Standard Webhooks secret format: `whsec_` + base64 of 24 random bytes (the HMAC key is the decoded bytes). */
const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export class CreateOrganization extends Command<CreatedOrganizationDto> {
  constructor(readonly body: unknown) {
    super();
  }
}

/** An organization with a webhook secret, unlimited quota and its first API key. */
@CommandHandler(CreateOrganization)
export class CreateOrganizationHandler implements ICommandHandler<CreateOrganization, CreatedOrganizationDto> {
  constructor(
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly commandBus: CommandBus,
  ) {}

  async execute({ body }: CreateOrganization): Promise<CreatedOrganizationDto> {
    const errors: FieldErrors = {};
    const b = asObject(body);
    const name = requireString(b, 'name', errors, { shownAsName: true });
    const webhookUrl = requireUrl(b, 'webhook_url', errors, this.config.production, this.config.webhooks.allowedAddresses);
    failOnErrors(errors);
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
    const key = await this.commandBus.execute(new IssueApiKey(org.id));
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
}

export class SetDefaultWebhook extends Command<WebhookSettingsDto> {
  constructor(
    readonly organizationId: string,
    readonly body: unknown,
  ) {
    super();
  }
}

@CommandHandler(SetDefaultWebhook)
export class SetDefaultWebhookHandler implements ICommandHandler<SetDefaultWebhook, WebhookSettingsDto> {
  constructor(
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ organizationId, body }: SetDefaultWebhook): Promise<WebhookSettingsDto> {
    await requireOrganization(this.directory, organizationId);
    const errors: FieldErrors = {};
    const b = asObject(body);
    if (!('url' in b)) addError(errors, 'url', 'The url field is required (null removes the default webhook).');
    const url = requireUrl(b, 'url', errors, this.config.production, this.config.webhooks.allowedAddresses);
    failOnErrors(errors);
    const org = await this.directory.updateOrganization(organizationId, { webhook_url: url });
    return { webhook_url: org!.webhook_url };
  }
}

export class RotateWebhookSecret extends Command<WebhookSecretDto> {
  constructor(readonly organizationId: string) {
    super();
  }
}

@CommandHandler(RotateWebhookSecret)
export class RotateWebhookSecretHandler implements ICommandHandler<RotateWebhookSecret, WebhookSecretDto> {
  constructor(@Inject(DIRECTORY) private readonly directory: Directory) {}

  async execute({ organizationId }: RotateWebhookSecret): Promise<WebhookSecretDto> {
    // The current secret is not read first: this also recovers an organization whose stored
    // secret no longer decrypts (its SECRETS_KEY lost; docs/security.md).
    const org = await this.directory.updateOrganization(organizationId, { webhook_secret: newWebhookSecret() });
    if (!org) throw ApiError.notFound('organization');
    return { webhook_secret: org.webhook_secret };
  }
}

export class SetReviewQuota extends Command<QuotaDto> {
  constructor(
    readonly organizationId: string,
    readonly body: unknown,
  ) {
    super();
  }
}

@CommandHandler(SetReviewQuota)
export class SetReviewQuotaHandler implements ICommandHandler<SetReviewQuota, QuotaDto> {
  constructor(@Inject(DIRECTORY) private readonly directory: Directory) {}

  async execute({ organizationId, body }: SetReviewQuota): Promise<QuotaDto> {
    await requireOrganization(this.directory, organizationId);
    const errors: FieldErrors = {};
    const b = asObject(body);
    const n = b.review_preparations;
    if (!('review_preparations' in b) || (n !== null && (!Number.isSafeInteger(n) || (n as number) < 0))) {
      addError(errors, 'review_preparations', 'The review preparations field must be a non-negative integer or null (unlimited).');
    }
    failOnErrors(errors);
    const org = await this.directory.updateOrganization(organizationId, { review_preparation_quota: n as number | null });
    return { review_preparations: org!.review_preparation_quota, used: org!.review_preparations_used };
  }
}
