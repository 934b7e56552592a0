import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, MaxLength, ValidateIf } from 'class-validator';
import { LOCALES } from '@app/domain';

export const STRUCTURED_EXTENSIONS = ['csv', 'tsv', 'txt', 'xlsx'] as const;
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp'] as const;

const req = (f: string) => ({ message: `The ${f} field is required.` });

/** Fields both POST bodies share (spec: "as the file request, except ..."). */
export class RunOptionsDto {
  @ApiProperty({ format: 'uuid' })
  @IsDefined(req('schema id'))
  @IsUUID('all', { message: 'The schema id field must be a valid UUID.' })
  schema_id!: string;

  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @IsBoolean({ message: 'The dry run field must be true or false.' })
  dry_run?: boolean;

  @ApiPropertyOptional({ enum: ['json', 'csv'], default: 'json' })
  @IsOptional()
  @IsIn(['json', 'csv'], { message: 'The selected output format is invalid.' })
  output_format?: 'json' | 'csv';

  @ApiPropertyOptional({ type: String, format: 'uri', nullable: true })
  notify_url?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uri', nullable: true })
  success_callback?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uri', nullable: true })
  cancel_callback?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: `One of ${LOCALES.join(', ')}; case-insensitive; others fall back to en.`,
  })
  @IsOptional()
  @IsString({ message: 'The locale field must be a string.' })
  locale?: string | null;

  @ApiPropertyOptional({ enum: ['light', 'dark'], nullable: true })
  @IsOptional()
  @IsIn(['light', 'dark'], { message: 'The selected appearance is invalid.' })
  appearance?: 'light' | 'dark' | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true })
  @IsOptional()
  @IsObject({ message: 'The metadata field must be an object.' })
  metadata?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', nullable: true }, nullable: true })
  @IsOptional()
  @IsObject({ message: 'The column labels field must be an object.' })
  column_labels?: Record<string, string | null> | null;
}

export class CreateFileRunDto extends RunOptionsDto {
  @ApiProperty({ maxLength: 255, example: 'contacts.csv' })
  @IsDefined(req('filename'))
  @IsString({ message: 'The filename field must be a string.' })
  @IsNotEmpty(req('filename'))
  @MaxLength(255, { message: 'The filename field must not be greater than 255 characters.' })
  filename!: string;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'Required for JPG, PNG and WebP filenames.' })
  @IsOptional()
  @IsUUID('all', { message: 'The provider id field must be a valid UUID.' })
  provider_id?: string | null;

  @ApiPropertyOptional({ type: Boolean, nullable: true })
  @IsOptional()
  @IsBoolean({ message: 'The input has header field must be true or false.' })
  input_has_header?: boolean | null;
}

export class CreateRawRunDto extends RunOptionsDto {
  @ApiProperty({ format: 'uuid' })
  @IsDefined(req('provider id'))
  @IsUUID('all', { message: 'The provider id field must be a valid UUID.' })
  provider_id!: string;

  @ApiProperty({ maxLength: 50000 })
  @IsDefined(req('content'))
  @IsString({ message: 'The content field must be a string.' })
  @IsNotEmpty(req('content'))
  @MaxLength(50000, { message: 'The content field must not be greater than 50000 characters.' })
  content!: string;
}

export class UploadInstructionsDto {
  @ApiProperty({ format: 'uri' }) url!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) headers!: Record<string, string>;
  @ApiProperty({ example: 'PUT' }) method!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}

export class CreatedRunDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() status!: string;
  @ApiProperty() stage!: string;
  @ApiProperty({ enum: ['upload', 'raw', 'image'] }) input_source!: string;
  @ApiProperty({ format: 'uuid' }) schema_id!: string;
  @ApiProperty({ format: 'uri' }) review_url!: string;
  @ApiPropertyOptional({ type: UploadInstructionsDto, description: 'File runs only.' }) upload?: UploadInstructionsDto;
}

export class RunErrorDto {
  @ApiProperty({ type: String, nullable: true }) code!: string | null;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
  @ApiProperty({ type: String, nullable: true }) type!: string | null;
  @ApiProperty({ type: String, nullable: true }) stage!: string | null;
  @ApiProperty() retryable!: boolean;
  @ApiProperty({ type: [String], nullable: true }) context!: string[] | null;
}

export class RunDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'completed' }) status!: string;
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
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: { type: 'string', nullable: true } }) mapping_rule!: Record<
    string,
    string | null
  > | null;
  @ApiProperty({ type: [String] }) source_headers!: string[];
  @ApiProperty({ type: Boolean, nullable: true }) input_has_header!: boolean | null;
  @ApiProperty({ type: Number, nullable: true }) total_rows!: number | null;
  @ApiProperty() processed_rows!: number;
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
