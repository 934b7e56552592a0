import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { PaginationLinksDto, PaginationMetaDto } from '../http/pagination.dto';
import { hasLoneSurrogate, LONE_SURROGATES_PROBLEM } from '../http/validate-body';
import { IsBoolean, IsDefined, IsIn, IsNotEmpty, IsOptional, IsString, IsUUID, MaxLength, ValidateBy, ValidateIf } from 'class-validator';
import { Transform } from 'class-transformer';
import { HIDDEN_CONTROLS_PROBLEM, LOCALES, hasHiddenControls } from '@app/domain';

export const STRUCTURED_EXTENSIONS = ['csv', 'tsv', 'txt', 'xlsx'] as const;
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp'] as const;

const req = (f: string) => ({ message: `The ${f} field is required.` });

/**
 * Ids are UUIDs, whose letter case does not matter: one given in upper case is the same id, so
 * it is looked up and stored as every id is stored, in lower case.
 */
const CanonicalId = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value));

/**
 * A member that may be left out but is never null (the spec types it without "or null"):
 * class-validator's IsOptional would let null through as if it were absent.
 */
const OptionalNotNull = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** Fields both POST bodies share (spec: "as the file request, except ..."). */
export class RunOptionsDto {
  @ApiProperty({ format: 'uuid' })
  @IsDefined(req('schema id'))
  @IsUUID('all', { message: 'The schema id field must be a valid UUID.' })
  @CanonicalId()
  schema_id!: string;

  @ApiPropertyOptional({
    type: Boolean,
    description: 'Synthetic output: raw runs call no provider; file runs consume no review-preparation quota.',
  })
  @OptionalNotNull()
  @IsBoolean({ message: 'The dry run field must be true or false.' })
  dry_run?: boolean;

  @ApiPropertyOptional({ enum: ['json', 'csv'], default: 'json', description: 'Format of the output produced after approval.' })
  @OptionalNotNull()
  @IsIn(['json', 'csv'], { message: 'The selected output format is invalid.' })
  output_format?: 'json' | 'csv';

  @ApiPropertyOptional({
    type: String,
    format: 'uri',
    nullable: true,
    maxLength: 2048,
    description: 'Webhook URL (else the organization default). HTTPS required in production.',
  })
  notify_url?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uri',
    nullable: true,
    maxLength: 2048,
    description: 'Where the review page sends the reviewer after approval. HTTPS required in production.',
  })
  success_callback?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uri',
    nullable: true,
    maxLength: 2048,
    description: 'Where the review page sends the reviewer after canceling. HTTPS required in production.',
  })
  cancel_callback?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: `One of ${LOCALES.join(', ')}; case-insensitive; a BCP 47 tag of one with a region or script (fr-CA) is that language; others fall back to en.`,
  })
  @IsOptional()
  @IsString({ message: 'The locale field must be a string.' })
  locale?: string | null;

  @ApiPropertyOptional({ enum: ['light', 'dark'], nullable: true, description: 'Review page theme, kept for all review interactions.' })
  @IsOptional()
  @IsIn(['light', 'dark'], { message: 'The selected appearance is invalid.' })
  appearance?: 'light' | 'dark' | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description:
      'Caller-defined JSON object, echoed exactly in run responses and webhooks (members named `constructor`, `__proto__` or `toString` are data like any other). Counts toward the body limits: 32 levels of nesting, 1000 object keys.',
  })
  // Validated and kept by validateRunBody (run-body.ts), never converted by class-transformer.
  metadata?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', nullable: true },
    nullable: true,
    description: 'Keys are schema field names; values override their labels in the review UI.',
  })
  // Validated by validateRunBody (run-body.ts) and the service (keys must be fields of the schema).
  column_labels?: Record<string, string | null> | null;
}

/** The scalar members of the shared options (what validateRunBody gives class-transformer). */
const RUN_OPTION_SCALARS = [
  'schema_id',
  'dry_run',
  'output_format',
  'notify_url',
  'success_callback',
  'cancel_callback',
  'locale',
  'appearance',
] as const;
export const FILE_RUN_SCALARS = [...RUN_OPTION_SCALARS, 'filename', 'provider_id', 'input_has_header'] as const;
export const RAW_RUN_SCALARS = [...RUN_OPTION_SCALARS, 'provider_id', 'content'] as const;

@ApiSchema({ name: 'CreateFileRunRequest', description: 'Body of POST /v1/transformations/file.' })
export class CreateFileRunDto extends RunOptionsDto {
  @ApiProperty({
    maxLength: 255,
    example: 'contacts.csv',
    description: 'Ends in .csv, .tsv, .txt or .xlsx (structured-file mapping) or .jpg, .jpeg, .png, .webp (image extraction).',
  })
  // class-validator checks the decorators bottom-up and stops at the first failure: the type first.
  @IsDefined(req('filename'))
  // Shown in the console, the review page and the download's name: a NUL or a direction override would hide or reorder it.
  @ValidateBy(
    { name: 'noHiddenControls', validator: { validate: (v: unknown) => typeof v === 'string' && !hasHiddenControls(v) } },
    {
      message: `The filename field ${HIDDEN_CONTROLS_PROBLEM}.`,
    },
  )
  @MaxLength(255, { message: 'The filename field must not be greater than 255 characters.' })
  @IsNotEmpty(req('filename'))
  @IsString({ message: 'The filename field must be a string.' })
  filename!: string;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'Required for JPG, PNG and WebP filenames.' })
  @IsOptional()
  @IsUUID('all', { message: 'The provider id field must be a valid UUID.' })
  @CanonicalId()
  provider_id?: string | null;

  @ApiPropertyOptional({ type: Boolean, nullable: true, description: 'Overrides header-row detection; ignored for image filenames.' })
  @IsOptional()
  @IsBoolean({ message: 'The input has header field must be true or false.' })
  input_has_header?: boolean | null;
}

@ApiSchema({ name: 'CreateRawRunRequest', description: 'Body of POST /v1/transformations/raw.' })
export class CreateRawRunDto extends RunOptionsDto {
  @ApiProperty({ format: 'uuid', description: 'Dry runs keep it, but the provider is not called.' })
  @IsDefined(req('provider id'))
  @IsUUID('all', { message: 'The provider id field must be a valid UUID.' })
  @CanonicalId()
  provider_id!: string;

  @ApiProperty({ minLength: 1, maxLength: 50000, description: 'The text to extract records from; sent to the provider unless dry_run.' })
  @IsDefined(req('content'))
  // Stored as UTF-8 and sent to the provider: half a surrogate pair has no UTF-8 form (it would become U+FFFD), as in metadata.
  @ValidateBy(
    { name: 'noLoneSurrogates', validator: { validate: (v: unknown) => typeof v === 'string' && !hasLoneSurrogate(v) } },
    { message: `The content field ${LONE_SURROGATES_PROBLEM}.` },
  )
  @MaxLength(50000, { message: 'The content field must not be greater than 50000 characters.' })
  @IsNotEmpty(req('content'))
  @IsString({ message: 'The content field must be a string.' })
  content!: string;
}

@ApiSchema({ name: 'UploadInstructions', description: 'Where and how to send the source file, before `expires_at`.' })
export class UploadInstructionsDto {
  @ApiProperty({ format: 'uri', description: 'Pre-signed URL the source file is sent to.' }) url!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'Headers to send with the upload.' })
  headers!: Record<string, string>;
  @ApiProperty({ example: 'PUT', description: 'HTTP method of the upload.' }) method!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}

@ApiSchema({ name: 'CreatedFileRun', description: 'The 201 body of POST /v1/transformations/file.' })
export class CreatedFileRunDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'awaiting_upload' }) status!: string;
  @ApiProperty({ enum: ['review', 'final'], example: 'review' }) stage!: string;
  @ApiProperty({ enum: ['upload', 'image'], description: '`image` for JPG, PNG and WebP filenames.' }) input_source!: string;
  @ApiProperty({ format: 'uuid' }) schema_id!: string;
  @ApiProperty({ format: 'uri', description: 'Signed hosted-review URL.' }) review_url!: string;
  @ApiProperty({ type: UploadInstructionsDto }) upload!: UploadInstructionsDto;
}

@ApiSchema({ name: 'CreatedRawRun', description: 'The 201 body of POST /v1/transformations/raw (no `upload` member).' })
export class CreatedRawRunDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'queued' }) status!: string;
  @ApiProperty({ enum: ['review', 'final'], example: 'review' }) stage!: string;
  @ApiProperty({ enum: ['raw'] }) input_source!: string;
  @ApiProperty({ format: 'uuid' }) schema_id!: string;
  @ApiProperty({ format: 'uri', description: 'Signed hosted-review URL.' }) review_url!: string;
}

@ApiSchema({ name: 'RunError', description: "A failed run's error." })
export class RunErrorDto {
  @ApiProperty({ type: String, nullable: true, example: 'transformation_storage_failed' }) code!: string | null;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'storage' }) type!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Processing stage, e.g. `final_processing`.' }) stage!: string | null;
  @ApiProperty() retryable!: boolean;
  @ApiProperty({ type: [String], nullable: true }) context!: string[] | null;
}

/** A run's `mapping_rule` as the run and its webhooks show it. */
export const MAPPING_RULE_PROPERTY: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  additionalProperties: { type: 'string', nullable: true },
  description: 'Target field name to source column header (or null).',
};

@ApiSchema({
  name: 'TransformationRun',
  description: 'A transformation run, as GET /v1/transformations/{transformationRun} returns it (not wrapped).',
})
export class RunDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'completed', description: 'Lifecycle status, e.g. awaiting_upload, queued, processing, completed, failed.' })
  status!: string;
  @ApiProperty() terminal!: boolean;
  @ApiProperty({ enum: ['review', 'final'] }) stage!: string;
  @ApiProperty({ format: 'uuid' }) schema_id!: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) provider_id!: string | null;
  @ApiProperty() dry_run!: boolean;
  @ApiProperty({ enum: ['upload', 'raw', 'image'] }) input_source!: string;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true }) metadata!: Record<string, unknown> | null;
  @ApiProperty({ type: String, nullable: true, format: 'uri' }) review_url!: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['active', 'canceled', 'approved', 'expired'] }) review_state!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) review_canceled_at!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) review_approved_at!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) review_expires_at!: string | null;
  @ApiProperty({ enum: ['json', 'csv'] }) output_format!: string;
  @ApiProperty(MAPPING_RULE_PROPERTY)
  mapping_rule!: Record<string, string | null> | null;
  @ApiProperty({ type: [String] }) source_headers!: string[];
  @ApiProperty({ type: Boolean, nullable: true }) input_has_header!: boolean | null;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0 }) total_rows!: number | null;
  @ApiProperty({ type: 'integer', minimum: 0 }) processed_rows!: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 0,
    description:
      "Addition to the spec: rows left out of the output at the reviewer's choice (rows left out one by one in the review, and rows with a problem when so chosen at approval); null until the output is ready.",
  })
  rows_excluded!: number | null;
  @ApiProperty({ type: RunErrorDto, nullable: true }) error!: RunErrorDto | null;
  @ApiProperty({ type: String, nullable: true, enum: ['pending', 'delivered', 'failed'] }) notification_status!: string | null;
  @ApiPropertyOptional({ type: UploadInstructionsDto, description: 'Present only while status is awaiting_upload.' })
  upload?: UploadInstructionsDto;
  @ApiProperty({ type: String, nullable: true, format: 'uri' }) download_url!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) file_retention_until!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) started_at!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) completed_at!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) failed_at!: string | null;
}

@ApiSchema({ name: 'RunList', description: "Pagination envelope of the organization's runs, newest first; each item is the run resource." })
export class RunListDto {
  @ApiProperty({ type: [RunDto] }) data!: RunDto[];
  @ApiProperty({ type: PaginationLinksDto }) links!: PaginationLinksDto;
  @ApiProperty({ type: PaginationMetaDto }) meta!: PaginationMetaDto;
}
