import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler, Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { DIRECTORY, type Directory } from '@app/directory';
import { ApiError } from '../../http/api-error';
import { newApiKey } from '../../http/api-key';
import type { FieldErrors } from '../../http/validate-body';
import type { ApiKeyListDto, IssuedApiKeyDto } from '../admin.dto';
import { asObject, requireString } from '../admin-validation';
import { failOnErrors, requireOrganization } from './organization-lookup';

/** The most characters a key's name has. */
export const API_KEY_NAME_MAX = 100;

/** What a key list shows of a key: the 8 characters after `tsk_` (48 of its 256 random bits). */
export const apiKeyPrefix = (key: string): string => key.slice('tsk_'.length, 'tsk_'.length + 8);

export class IssueApiKey extends Command<IssuedApiKeyDto> {
  /** `body`: `{ "name": "..." }`, optional; a request without a body issues an unnamed key. */
  constructor(
    readonly organizationId: string,
    readonly body: unknown = undefined,
  ) {
    super();
  }
}

/** The name a key is issued with: optional, up to 100 characters, blanks alone are no name. */
function apiKeyNameOf(body: unknown): string | null {
  const errors: FieldErrors = {};
  const b = body === undefined ? {} : asObject(body);
  // Trimmed before it is measured: the name kept is the one counted.
  const given = typeof b.name === 'string' ? { name: b.name.trim() } : b;
  const name = requireString(given, 'name', errors, { optional: true, max: API_KEY_NAME_MAX, shownAsName: true });
  failOnErrors(errors);
  return name;
}

/** A new key: its secret is shown once, only its SHA-256 is stored. */
@CommandHandler(IssueApiKey)
export class IssueApiKeyHandler implements ICommandHandler<IssueApiKey, IssuedApiKeyDto> {
  constructor(@Inject(DIRECTORY) private readonly directory: Directory) {}

  async execute({ organizationId, body }: IssueApiKey): Promise<IssuedApiKeyDto> {
    await requireOrganization(this.directory, organizationId);
    const name = apiKeyNameOf(body);
    const key = newApiKey();
    const prefix = apiKeyPrefix(key.key);
    await this.directory.addApiKey({
      id: key.id,
      organization_id: organizationId,
      key_hash: key.hash,
      prefix,
      name,
      created_at: new Date().toISOString(),
      revoked_at: null,
    });
    return { id: key.id, api_key: key.key, prefix, name };
  }
}

export class RevokeApiKey extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly keyId: string,
  ) {
    super();
  }
}

@CommandHandler(RevokeApiKey)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKey, void> {
  constructor(@Inject(DIRECTORY) private readonly directory: Directory) {}

  async execute({ organizationId, keyId }: RevokeApiKey): Promise<void> {
    await requireOrganization(this.directory, organizationId);
    if (!(await this.directory.revokeApiKey(organizationId, keyId, new Date().toISOString()))) throw ApiError.notFound('API key');
  }
}

export class ListApiKeys extends Query<ApiKeyListDto> {
  constructor(readonly organizationId: string) {
    super();
  }
}

/** Every key of the organization, revoked ones too, oldest first: ids, prefixes and names, never a secret or a hash. */
@QueryHandler(ListApiKeys)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeys, ApiKeyListDto> {
  constructor(@Inject(DIRECTORY) private readonly directory: Directory) {}

  async execute({ organizationId }: ListApiKeys): Promise<ApiKeyListDto> {
    await requireOrganization(this.directory, organizationId);
    const keys = await this.directory.listApiKeys(organizationId);
    return {
      data: keys.map((k) => ({ id: k.id, prefix: k.prefix, name: k.name ?? null, created_at: k.created_at, revoked_at: k.revoked_at })),
    };
  }
}
