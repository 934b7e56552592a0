import { ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { WebhookEventName } from '@app/contracts';
import { MAPPING_RULE_PROPERTY, RunErrorDto } from '../transformations/transformation.dto';
import { WEBHOOK_EVENTS } from '../transformations/deliveries.service';
import type { Json } from './error-responses';

/**
 * The webhooks the service sends (the contract's "Events"), as OpenAPI 3.1 `webhooks`: what a receiver is sent, so a
 * customer's tooling can generate its handler from the same document as its API client. Each event is a POST of
 * `WebhookPayload` with the contract's headers and the Standard Webhooks signature headers; any 2xx acknowledges it.
 * The payload is apps/notifier/src/webhook-payload.ts's; test/e2e/openapi-webhooks.e2e.spec.ts checks real deliveries
 * of each event against this document, objects closed, so a member sent and not documented fails it.
 */
@ApiSchema({
  name: 'WebhookPayload',
  description: "A webhook's body: the event and the run's state when it was sent (docs/api.md, Webhooks).",
})
export class WebhookPayloadDto {
  @ApiProperty({ enum: WEBHOOK_EVENTS }) event!: WebhookEventName;
  @ApiProperty({ format: 'uuid', description: 'The run (also in `X-Service-Id`).' }) id!: string;
  @ApiProperty({ enum: ['awaiting_upload', 'queued', 'processing', 'completed', 'failed'] }) status!: string;
  @ApiProperty({ enum: ['review', 'final'] }) stage!: string;
  @ApiProperty({ format: 'uuid' }) schema_id!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The caller metadata, `{}` when none was given.' })
  metadata!: Record<string, unknown>;
  @ApiProperty({ format: 'uri', description: 'Signed hosted-review URL.' }) review_url!: string;
  @ApiProperty({ type: String, nullable: true, enum: ['active', 'canceled', 'approved', 'expired'] }) review_state!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) review_canceled_at!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) review_approved_at!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) review_expires_at!: string | null;
  @ApiProperty(MAPPING_RULE_PROPERTY)
  mapping_rule!: Record<string, string | null> | null;
  @ApiProperty({ type: [String] }) source_headers!: string[];
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) completed_at!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) failed_at!: string | null;
  @ApiProperty({ type: RunErrorDto, nullable: true }) error!: RunErrorDto | null;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uri',
    description: 'A pre-signed URL of the output, fresh for each attempt; only `transformation.finished` has one.',
  })
  download_url!: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 0,
    description: "Addition to the spec: rows left out of the output at the reviewer's choice; null but in `transformation.finished`.",
  })
  rows_excluded!: number | null;
}

const WHEN: Record<WebhookEventName, string> = {
  'transformation.finished': 'The run completed its final stage: the output is ready to download (`download_url`).',
  'transformation.review.canceled': 'A reviewer canceled the hosted review (informational; the review stays read-only).',
  'transformation.failed': 'The run failed terminally (`error` says why). Recoverable review issues send none.',
};

const header = (name: string, description: string, schema: Json): Json => ({ name, in: 'header', required: true, description, schema });

/** The `webhooks` member of the public document, one POST for each event, with the service's retry settings. */
export function webhooksDocument(delivery: { maxAttempts: number; timeoutMs: number }): NonNullable<OpenAPIObject['webhooks']> {
  const seconds = delivery.timeoutMs / 1000;
  const items: Json = Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event,
      {
        post: {
          summary: event,
          description: `${WHEN[event]} Sent to the run's \`notify_url\`, else the organization's default webhook URL; attempted up to ${delivery.maxAttempts} times with a ${seconds} s timeout each, deduplicated by \`webhook-id\` (or \`X-Service-Id\` with the event).`,
          operationId: `webhooks.${event}`,
          parameters: [
            header('X-Service-Event', 'The event.', { type: 'string', enum: [event] }),
            header('X-Service-Id', 'The run.', { type: 'string', format: 'uuid' }),
            header('X-Service-Webhook-Secret', "The organization's webhook secret.", { type: 'string' }),
            header('webhook-id', 'Standard Webhooks: the delivery, the same on every attempt.', { type: 'string' }),
            header('webhook-timestamp', 'Standard Webhooks: seconds since the epoch when the attempt was signed.', {
              type: 'string',
              pattern: '^[0-9]+$',
            }),
            header('webhook-signature', 'Standard Webhooks: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` under the secret.', {
              type: 'string',
              pattern: '^v1,[A-Za-z0-9+/=]+$',
            }),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: getSchemaPath(WebhookPayloadDto) } } },
          },
          responses: {
            '2XX': { description: `Acknowledged: any 2xx. Anything else, no answer within ${seconds} s or a redirect is retried.` },
          },
        },
      },
    ]),
  );
  return items as NonNullable<OpenAPIObject['webhooks']>;
}
