import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '@app/config';
import { buildAdminDocument } from './admin-document';
import { buildPublicDocument } from './public-document';

/**
 * Serves the public document at /openapi.json and /openapi.yaml and the admin one at
 * /admin/openapi.json and /admin/openapi.yaml (documents only, no UI: the UI's
 * static-file plugin is ESM-only and not needed to serve them). Both are built once, at
 * startup, so a broken document stops the service from starting rather than a request.
 */
export function serveOpenApiDocuments(app: NestFastifyApplication, config: AppConfig): void {
  SwaggerModule.setup('docs', app, buildPublicDocument(app, config), {
    ui: false,
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
  });
  SwaggerModule.setup('admin/docs', app, buildAdminDocument(app, config), {
    ui: false,
    jsonDocumentUrl: 'admin/openapi.json',
    yamlDocumentUrl: 'admin/openapi.yaml',
  });
}
