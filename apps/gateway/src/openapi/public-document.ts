import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '@app/config';
import { GatewayModule } from '../gateway.module';
import { errorComponents } from './error-responses';
import { API_KEY_SCHEME } from './security-schemes';
import { finishDocument } from './standard-responses';
import { WebhookPayloadDto, webhooksDocument } from './webhooks-document';

const DESCRIPTION = `Turns uploaded files and text into records shaped like a target schema, with hosted human review.

Review and approval happen in the hosted review interface reached through a run's signed \`review_url\`, not through this API; the source file is sent to the run's \`upload\` instructions and the output fetched from its \`download_url\` (both pre-signed URLs, opaque to this document).

Errors come in the envelope \`{ "error": { "code", "message", "type", "request_id" } }\`; 422 adds \`error.fields\`. Every answer carries \`X-Request-Id\`. Each API key has a rate limit per fixed one-minute window, reported in \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` on every answer that passed authentication; past it, 429 with \`Retry-After\`.

Both POSTs take an optional \`Idempotency-Key\` header (1 to 255 printable ASCII characters, scoped to the organization): the same key with the same request within 24 hours answers with the first 201 again (\`Idempotent-Replayed: true\`) and creates nothing. Request bodies may nest objects and arrays at most 32 levels deep and hold at most 2000 object keys in total (room for a label for each of a schema's 1,000 fields; 422 otherwise).`;

/**
 * The public API's document: the /v1 controllers of GatewayModule. The admin API has its
 * own document (admin-document.ts). Left out on purpose (`@ApiExcludeController`): the
 * hosted review routes (/review/{runId}/..., /review-assets/...), which a reviewer's
 * browser calls under the run's signed link, not an API caller with a key: the contract
 * keeps review "in that interface, not through this API", and their shape follows the
 * page. The signed /files/... routes (embedded storage only) are not in a document either:
 * they stand in for S3 pre-signed URLs, which callers use only as the opaque `upload.url`
 * and `download_url` of a run, and which do not exist at all with S3 storage.
 */
export function buildPublicDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const base = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Transformation Service API')
    .setDescription(DESCRIPTION)
    .setVersion('v1')
    .addServer(config.publicBaseUrl)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'API key',
        description:
          'API key issued by the admin API (`POST /admin/v1/organizations` returns the first, `POST /admin/v1/organizations/{org}/api-keys` more; revoked with `DELETE .../api-keys/{id}`). An opaque string (`tsk_...`), not a JWT: send `Authorization: Bearer <API_KEY>`.',
      },
      API_KEY_SCHEME,
    )
    .addTag('transformations', 'Create transformation runs and poll them.')
    .addTag('catalog', "Read-only lists of the organization's AI providers and target schemas.")
    .build();
  // The webhooks the service sends: their payload's schema joins the components, their POSTs the document.
  const scanned = SwaggerModule.createDocument(app, base, { include: [GatewayModule], extraModels: [WebhookPayloadDto] });
  scanned.webhooks = webhooksDocument(config.webhooks);
  return finishDocument(scanned, {
    components: errorComponents({ audience: 'public', maxJsonBodyBytes: config.maxJsonBodyBytes }),
    rateLimited: true,
  });
}
