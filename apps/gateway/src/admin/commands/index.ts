import { IssueApiKeyHandler, ListApiKeysHandler, RevokeApiKeyHandler } from './api-key.commands';
import { DeleteProviderHandler, DeleteSchemaHandler, PutProviderHandler, PutSchemaHandler } from './catalog.commands';
import {
  CreateOrganizationHandler,
  RotateWebhookSecretHandler,
  SetDefaultWebhookHandler,
  SetReviewQuotaHandler,
} from './organization.commands';

export * from './api-key.commands';
export * from './catalog.commands';
export * from './organization.commands';

/** The admin API's command and query handlers (the directory's writes: each handler is its own rule). */
export const ADMIN_HANDLERS = [
  CreateOrganizationHandler,
  SetDefaultWebhookHandler,
  RotateWebhookSecretHandler,
  SetReviewQuotaHandler,
  IssueApiKeyHandler,
  RevokeApiKeyHandler,
  ListApiKeysHandler,
  PutSchemaHandler,
  DeleteSchemaHandler,
  PutProviderHandler,
  DeleteProviderHandler,
];
