import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { PaginationLinksDto, PaginationMetaDto } from '../http/pagination.dto';

/** The Provider and Schema resources, their `{ data }` wrappers and their pagination envelopes. */
@ApiSchema({ name: 'Provider', description: 'An AI provider configuration of the organization; never carries the vendor secret.' })
export class ProviderDto {
  @ApiProperty({ format: 'uuid', description: 'Passed as `provider_id` when creating runs.' }) id!: string;
  @ApiProperty({ description: 'User-defined name of this configuration.' }) name!: string;
  @ApiProperty({ description: 'Provider key identifying the AI vendor.', example: 'anthropic' }) provider!: string;
  @ApiProperty({ description: 'Display name of the vendor.', example: 'Anthropic' }) provider_label!: string;
  @ApiProperty({ description: 'Model identifier used with this provider.' }) model!: string;
  @ApiProperty({ description: 'Display name of the model.' }) model_label!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at!: string | null;
}

@ApiSchema({ name: 'FieldDefinition', description: 'A target field of a schema.' })
export class FieldDefinitionDto {
  @ApiProperty({ description: 'What the field holds.' }) description!: string;
  @ApiProperty({
    description:
      'Type of the field: string, text, email, url, number, integer, boolean, enum, date, datetime, phone (written in E.164, an extension after it as ;ext=12) or country (written as country_format says); any other type is text.',
    example: 'string',
  })
  data_type!: string;
  @ApiProperty() is_required!: boolean;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Display label (review-UI column name).' }) label?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Format of the value (for dates, a date pattern).' })
  format?: string | null;
  @ApiPropertyOptional({
    type: 'object',
    description:
      'Transformations applied after mapping, by name (trim_whitespace, uppercase, lowercase, date_format with `from` and `to`).',
    additionalProperties: {
      type: 'object',
      properties: { enabled: { type: 'boolean' } },
      required: ['enabled'],
      additionalProperties: true,
    },
  })
  transformations?: Record<string, { enabled: boolean; [option: string]: unknown }>;
  @ApiPropertyOptional({
    description: 'Addition to the spec: for data_type `enum` (a picklist), the allowed values and the labels reviewers see.',
    type: 'array',
    items: {
      type: 'object',
      properties: {
        value: { type: 'string' },
        label: { type: 'string', nullable: true },
        labels: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'The label in other review languages, by locale; `label` is the default.',
        },
      },
      required: ['value'],
    },
  })
  allowed_values?: { value: string; label?: string | null; labels?: Record<string, string> }[];
  @ApiPropertyOptional({
    description: 'Addition to the spec: the description in other review languages, by locale; `description` is the default.',
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  descriptions?: Record<string, string>;
  @ApiPropertyOptional({
    description:
      'Addition to the spec: for data_type `number` or `integer`, how its values are written. A locale (its separators and digits) or the separators themselves; `currency` allows currency symbols and codes, `percent` reads the values as percentages ("12 %" and "12" are 0.12). Output is a JSON number (CSV: a plain number with a `.` decimal point).',
    type: 'object',
    properties: {
      locale: { type: 'string', description: 'A BCP 47 locale, e.g. de-DE, fr-CH, en-IN.' },
      decimal: { type: 'string', enum: ['.', ',', '\u066b'], description: 'The decimal mark (overrides the locale’s).' },
      group: {
        type: 'string',
        enum: ['.', ',', "'", '\u2019', ' ', '\u00a0', '\u202f', '\u066c', ''],
        description:
          'The thousands mark ("" for none; blanks are always accepted). Without it and without a locale, the other of comma and dot.',
      },
      currency: { type: 'boolean' },
      percent: { type: 'boolean' },
    },
    additionalProperties: false,
  })
  number_format?: { locale?: string; decimal?: string; group?: string; currency?: boolean; percent?: boolean };
  @ApiPropertyOptional({
    type: String,
    description: 'Addition to the spec: for data_type `phone`, the region (ISO 3166 alpha-2) of numbers written without a country code.',
  })
  default_region?: string;
  @ApiPropertyOptional({
    enum: ['alpha2', 'alpha3', 'name'],
    description:
      'Addition to the spec: for data_type `country`, what the output writes: the alpha-2 code (the default), the alpha-3 code, or the English name.',
  })
  country_format?: 'alpha2' | 'alpha3' | 'name';
  @ApiPropertyOptional({
    type: String,
    maxLength: 1000,
    description:
      'Addition to the spec: a regular expression a non-empty value must match somewhere (anchor it with ^ and $ for the whole value), in the syntax RE2 and JavaScript share. Run on RE2, in linear time; refused with 422 when RE2 cannot run it (backreferences, lookaround) or when it can backtrack catastrophically (nested repetition such as (a+)+). Checked on the value without its surrounding whitespace.',
    example: '^[A-Z]{2}-\\d{3}$',
  })
  pattern?: string;
  @ApiPropertyOptional({
    oneOf: [{ type: 'number' }, { type: 'string' }],
    description:
      'Addition to the spec: the smallest value allowed. A number for data_type number or integer; an ISO 8601 date or date-time (2024-01-31, 2024-01-31T08:00:00) for date or datetime, compared with the values as written (no time zone). Other types refuse it (422).',
  })
  min?: number | string;
  @ApiPropertyOptional({
    oneOf: [{ type: 'number' }, { type: 'string' }],
    description: 'Addition to the spec: the largest value allowed, as `min`. A date-only max includes its whole day for datetime fields.',
  })
  max?: number | string;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 1000000,
    description:
      'Addition to the spec: the fewest characters (Unicode code points) a non-empty value may have, surrounding whitespace not counted.',
  })
  min_length?: number;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 1000000,
    description: 'Addition to the spec: the most characters, as `min_length`.',
  })
  max_length?: number;
  @ApiPropertyOptional({
    type: 'boolean',
    description:
      'Addition to the spec: no non-empty value may appear twice in the file; every occurrence of a repeated value is a problem of kind `unique`. Numbers and booleans compare as typed ("1.0" and "1" are the same), text as written (case counts), without surrounding whitespace.',
  })
  unique?: boolean;
}

@ApiSchema({ name: 'Schema', description: 'A target schema of the organization.' })
@ApiExtraModels(FieldDefinitionDto)
export class SchemaDto {
  @ApiProperty({ format: 'uuid', description: 'Passed as `schema_id` when creating runs.' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({
    type: 'object',
    description: 'Target field name to field definition.',
    additionalProperties: { $ref: getSchemaPath(FieldDefinitionDto) },
  })
  fields!: Record<string, FieldDefinitionDto>;
  @ApiPropertyOptional({
    type: String,
    format: 'uri',
    description:
      "Addition to the spec: the customer's validation hook. The review sends batches of mapped rows to it, signed like webhooks, and shows its answer as problems (see the `reviewValidate` callback and docs/validation-hook.md).",
  })
  validation_url?: string;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'array', items: { type: 'string' }, minItems: 2 },
    description:
      'Addition to the spec: sets of field names whose values must be unique together in the file; every row of a repeated combination has a `unique` problem in each field of the set. A row whose fields of a set are all empty takes no part.',
    example: [['first_name', 'last_name']],
  })
  unique_with?: string[][];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at!: string | null;
}

@ApiSchema({ name: 'ProviderResource' })
export class ProviderResourceDto {
  @ApiProperty({ type: ProviderDto }) data!: ProviderDto;
}

@ApiSchema({ name: 'SchemaResource' })
export class SchemaResourceDto {
  @ApiProperty({ type: SchemaDto }) data!: SchemaDto;
}

@ApiSchema({ name: 'ProviderList', description: 'Pagination envelope of providers.' })
export class ProviderListDto {
  @ApiProperty({ type: [ProviderDto] }) data!: ProviderDto[];
  @ApiProperty({ type: PaginationLinksDto }) links!: PaginationLinksDto;
  @ApiProperty({ type: PaginationMetaDto }) meta!: PaginationMetaDto;
}

@ApiSchema({ name: 'SchemaList', description: 'Pagination envelope of schemas.' })
export class SchemaListDto {
  @ApiProperty({ type: [SchemaDto] }) data!: SchemaDto[];
  @ApiProperty({ type: PaginationLinksDto }) links!: PaginationLinksDto;
  @ApiProperty({ type: PaginationMetaDto }) meta!: PaginationMetaDto;
}
