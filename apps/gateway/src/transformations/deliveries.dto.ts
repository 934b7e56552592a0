import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PaginationLinksDto, PaginationMetaDto } from '../http/pagination.dto';

@ApiSchema({ name: 'WebhookDeliveryAttempt', description: "One attempt to deliver one of the run's webhooks." })
export class DeliveryAttemptDto {
  @ApiProperty({ description: 'Unique per attempt: `<delivery_id>:<attempt>`.', example: '9b2f…:2' })
  id!: string;
  @ApiProperty({
    description: 'The delivery (one per run and event; the `webhook-id` header, the same on every attempt). Re-sending names it.',
  })
  delivery_id!: string;
  @ApiProperty({ enum: ['transformation.finished', 'transformation.review.canceled', 'transformation.failed'] })
  event!: string;
  @ApiProperty({ type: String, format: 'uri', nullable: true, description: 'Where the attempt was sent.' })
  url!: string | null;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The attempt number: 1 for the first, going on across re-sends.' })
  attempt!: number;
  @ApiProperty({ enum: ['delivered', 'failed'], description: '`delivered` when the receiver answered 2xx.' })
  outcome!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's HTTP status; null when it gave no answer." })
  status_code!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the attempt failed (`HTTP 500`, `no answer within the timeout`, `connection refused`, ...); null when delivered.',
  })
  error!: string | null;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    nullable: true,
    description: "From sending to the answer's status line (or the failure), in ms; null for attempts made before it was measured.",
  })
  duration_ms!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    maxLength: 512,
    description: "The first 512 characters of the receiver's answer; null when there was none or it was empty.",
  })
  response_excerpt!: string | null;
  @ApiProperty({ format: 'date-time', description: 'When the attempt was made.' })
  sent_at!: string;
}

@ApiSchema({ name: 'WebhookDeliveryList', description: 'Pagination envelope of webhook delivery attempts, newest first.' })
export class DeliveryListDto {
  @ApiProperty({ type: [DeliveryAttemptDto] }) data!: DeliveryAttemptDto[];
  @ApiProperty({ type: PaginationLinksDto }) links!: PaginationLinksDto;
  @ApiProperty({ type: PaginationMetaDto }) meta!: PaginationMetaDto;
}
