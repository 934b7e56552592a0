import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

/** The validation hook's contract in the admin OpenAPI document: the `reviewValidate` callback of a schema's `validation_url`. */
@ApiSchema({
  name: 'ValidateRow',
  description: 'One mapped row: its number in the file (from 1) and each field’s value as the output delivers it.',
})
class ValidateRowDto {
  @ApiProperty({ type: 'integer', minimum: 1 }) row!: number;
  @ApiProperty({
    type: 'object',
    description: 'Field name to value: typed for JSON output (number, boolean), text for CSV output; null when empty.',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] },
  })
  values!: Record<string, string | number | boolean | null>;
}

@ApiSchema({
  name: 'ValidateRequest',
  description:
    'What the review POSTs to a schema’s validation_url: a batch of the run’s rows (VALIDATION_HOOK_BATCH_ROWS a batch: the first VALIDATION_HOOK_MAX_ROWS up front, later ones when a review page shows them), signed per Standard Webhooks with the organization’s webhook secret (webhook-id, webhook-timestamp, webhook-signature). See docs/validation-hook.md.',
})
export class ValidateRequestDto {
  @ApiProperty({ enum: ['review.validate'] }) type!: 'review.validate';
  @ApiProperty({ format: 'uuid' }) run_id!: string;
  @ApiProperty({ format: 'uuid' }) schema_id!: string;
  @ApiProperty({ type: [ValidateRowDto] }) rows!: ValidateRowDto[];
}

@ApiSchema({ name: 'ValidateResult', description: 'What the hook says of one cell. No other keys are allowed.' })
class ValidateResultDto {
  @ApiProperty({ type: 'integer', description: 'A row of the batch.' }) row!: number;
  @ApiProperty({ description: 'A field of the schema.' }) field!: string;
  @ApiProperty({ minLength: 1, description: 'Shown to the reviewer in the cell (cut at 500 characters).' }) message!: string;
  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
    nullable: true,
    description: 'A value the reviewer may accept with one action (recorded as a cell fix); at most 10,000 characters.',
  })
  corrected_value?: string | number | boolean | null;
}

@ApiSchema({
  name: 'ValidateAnswer',
  description:
    'The hook’s 2xx answer to a batch (at most 1 MB). Anything else (not JSON, no results list, a row or field not sent, an unknown key) fails the customer’s checks for the run’s state; the review goes on without them and says so.',
})
export class ValidateAnswerDto {
  @ApiProperty({ type: [ValidateResultDto], description: 'The cells with a problem; an empty list when all is well.' })
  results!: ValidateResultDto[];
}
