import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '@app/config';
import { AdminModule } from '../admin/admin.module';
import { ConsoleModule } from '../console/console.module';
import { errorComponents } from './error-responses';
import { ADMIN_TOKEN_SCHEME } from './security-schemes';
import { finishDocument } from './standard-responses';

/** The admin API's own document (/admin/v1, AdminModule's controller); never merged into the public one. */
export function buildAdminDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const base = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Transformation Service Admin API')
    .setDescription(
      "The operator's API (the spec's dashboard): organizations, their API keys, default webhook and its secret, review-preparation quota, target schemas and AI providers. Not rate limited, but failed authentication is throttled per client address (429). Errors use the public API's envelope.",
    )
    .setVersion('v1')
    .addServer(config.publicBaseUrl)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'ADMIN_TOKEN',
        description:
          "The service's ADMIN_TOKEN setting, sent as `Authorization: Bearer <ADMIN_TOKEN>` and compared in constant time. While ADMIN_TOKEN is unset every call gets 401.",
      },
      ADMIN_TOKEN_SCHEME,
    )
    .addTag('admin')
    .build();
  const scanned = SwaggerModule.createDocument(app, base, { include: [AdminModule, ConsoleModule] });
  return finishDocument(scanned, {
    components: errorComponents({ audience: 'admin', maxJsonBodyBytes: config.maxJsonBodyBytes }),
    rateLimited: false,
  });
}
