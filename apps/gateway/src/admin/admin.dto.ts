import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { SUPPORTED_VENDORS } from '@app/ai-providers';
import { FieldDefinitionDto } from '../catalog/catalog.dto';

/**
 * Request and response bodies of the admin API, for its OpenAPI document. The admin
 * service validates bodies by hand (admin-validation.ts); these classes describe the
 * same rules and type the controller's answers.
 */

const url = (description: string) => ({ type: String, format: 'uri', maxLength: 2048, nullable: true, description });

@ApiSchema({ name: 'CreateOrganizationRequest' })
export class CreateOrganizationRequestDto {
  @ApiProperty({ minLength: 1, maxLength: 255 }) name!: string;
  @ApiPropertyOptional(url("Default webhook URL of the organization (a run's notify_url takes precedence). HTTPS required in production."))
  webhook_url?: string | null;
}

@ApiSchema({ name: 'CreatedOrganization', description: 'The new organization with its first API key (shown only here).' })
export class CreatedOrganizationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The first API key: shown once, stored only as a hash.', example: 'tsk_...' }) api_key!: string;
  @ApiProperty({ format: 'uuid', description: "The first API key's id (to list or revoke it)." }) api_key_id!: string;
  @ApiProperty({ description: 'Webhook secret (Standard Webhooks format).', pattern: '^whsec_' }) webhook_secret!: string;
  @ApiProperty({ type: String, format: 'uri', nullable: true }) webhook_url!: string | null;
}

@ApiSchema({ name: 'IssuedApiKey', description: 'A new API key: shown once, stored only as a hash.' })
export class IssuedApiKeyDto {
  @ApiProperty({ format: 'uuid', description: 'Id of the key (to revoke it).' }) id!: string;
  @ApiProperty({ example: 'tsk_...' }) api_key!: string;
  @ApiProperty({ minLength: 8, maxLength: 8, description: 'The 8 characters after `tsk_`: how key lists show the key.' }) prefix!: string;
  @ApiProperty({ type: String, nullable: true, maxLength: 100, description: 'The name it was issued with; null: unnamed.' })
  name!: string | null;
}

@ApiSchema({ name: 'IssueApiKeyRequest', description: 'Optional: a request without a body issues an unnamed key.' })
export class IssueApiKeyRequestDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 100,
    description: 'What the key is for ("billing export", "staging"), shown in key lists. Blanks around it are dropped.',
  })
  name?: string | null;
}

@ApiSchema({ name: 'ApiKeySummary', description: 'An API key as listed: never the key itself or its hash.' })
export class ApiKeySummaryDto {
  @ApiProperty({ format: 'uuid', description: 'Id of the key (to revoke it).' }) id!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    minLength: 8,
    maxLength: 8,
    description:
      'The 8 characters after `tsk_` at the start of the key, to tell keys apart; null for keys issued before prefixes were kept.',
  })
  prefix!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 100, description: 'The name it was issued with; null: unnamed.' })
  name!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it was revoked; null while it works.' })
  revoked_at!: string | null;
}

@ApiSchema({ name: 'ApiKeyList', description: 'Every API key of the organization, revoked ones too, oldest first (not paginated).' })
export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeySummaryDto] }) data!: ApiKeySummaryDto[];
}

@ApiSchema({ name: 'WebhookSettingsRequest' })
export class WebhookSettingsRequestDto {
  @ApiProperty(url('Default webhook URL; null removes it. HTTPS required in production.')) url!: string | null;
}

@ApiSchema({ name: 'WebhookSettings' })
export class WebhookSettingsDto {
  @ApiProperty({ type: String, format: 'uri', nullable: true }) webhook_url!: string | null;
}

@ApiSchema({ name: 'WebhookSecret' })
export class WebhookSecretDto {
  @ApiProperty({ description: 'The new webhook secret; the old one stops working at once.', pattern: '^whsec_' }) webhook_secret!: string;
}

@ApiSchema({ name: 'QuotaRequest' })
export class QuotaRequestDto {
  @ApiProperty({ type: 'integer', minimum: 0, nullable: true, description: 'Review preparations allowed; null is unlimited.' })
  review_preparations!: number | null;
}

@ApiSchema({ name: 'Quota' })
export class QuotaDto {
  @ApiProperty({ type: 'integer', minimum: 0, nullable: true, description: 'null is unlimited.' }) review_preparations!: number | null;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Review preparations used so far.' }) used!: number;
}

@ApiSchema({ name: 'SchemaRequest', description: 'A target schema, whole (PUT replaces it).' })
@ApiExtraModels(FieldDefinitionDto)
export class SchemaRequestDto {
  @ApiProperty({ minLength: 1, maxLength: 255 }) name!: string;
  @ApiProperty({
    type: 'object',
    minProperties: 1,
    description: 'Target field name (a letter or _, then letters, digits, _ . -; at most 100) to field definition.',
    additionalProperties: { $ref: getSchemaPath(FieldDefinitionDto) },
  })
  fields!: Record<string, FieldDefinitionDto>;
  @ApiPropertyOptional({
    type: String,
    format: 'uri',
    maxLength: 2048,
    nullable: true,
    description:
      "Addition to the spec: the customer's validation hook (the `reviewValidate` callback). http(s); HTTPS in production; no literal private, loopback or reserved address, and names are checked again on the address they resolve to at each call (422 otherwise).",
  })
  validation_url?: string | null;
}

@ApiSchema({
  name: 'ProviderRequest',
  description: 'An AI provider configuration, whole (PUT replaces it, except a missing api_key keeps the stored one).',
})
export class ProviderRequestDto {
  @ApiProperty({ minLength: 1, maxLength: 255 }) name!: string;
  @ApiProperty({ enum: Object.keys(SUPPORTED_VENDORS), description: 'The AI vendor.' }) provider!: string;
  @ApiProperty({ minLength: 1, maxLength: 255 }) model!: string;
  @ApiPropertyOptional({ type: String, maxLength: 255, nullable: true, description: 'Display name of the model (default: model).' })
  model_label?: string | null;
  @ApiPropertyOptional({
    type: String,
    maxLength: 4096,
    nullable: true,
    writeOnly: true,
    description: 'The vendor secret; never returned.',
  })
  api_key?: string | null;
  @ApiPropertyOptional(url("The vendor's API base URL, when not the default."))
  base_url?: string | null;
}
