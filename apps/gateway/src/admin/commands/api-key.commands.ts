import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler, Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { DIRECTORY, type Directory } from '@app/directory';
import { ApiError } from '../../http/api-error';
import { newApiKey } from '../../http/api-key';
import type { ApiKeyListDto, IssuedApiKeyDto } from '../admin.dto';
import { requireOrganization } from './organization-lookup';

/** What a key list shows of a key: the 8 characters after `tsk_` (48 of its 256 random bits). */
const apiKeyPrefix = (key: string): string => key.slice('tsk_'.length, 'tsk_'.length + 8);

export class IssueApiKey extends Command<IssuedApiKeyDto> {
  constructor(readonly organizationId: string) {
    super();
  }
}

/** A new key: its secret is shown once, only its SHA-256 is stored. */
@CommandHandler(IssueApiKey)
export class IssueApiKeyHandler implements ICommandHandler<IssueApiKey, IssuedApiKeyDto> {
  constructor(@Inject(DIRECTORY) private readonly directory: Directory) {}

  async execute({ organizationId }: IssueApiKey): Promise<IssuedApiKeyDto> {
    await requireOrganization(this.directory, organizationId);
    const key = newApiKey();
    await this.directory.addApiKey({
      id: key.id,
      organization_id: organizationId,
      key_hash: key.hash,
      prefix: apiKeyPrefix(key.key),
      created_at: new Date().toISOString(),
      revoked_at: null,
    });
    return { id: key.id, api_key: key.key };
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

/** Every key of the organization, revoked ones too, oldest first: ids and prefixes, never a secret or a hash. */
@QueryHandler(ListApiKeys)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeys, ApiKeyListDto> {
  constructor(@Inject(DIRECTORY) private readonly directory: Directory) {}

  async execute({ organizationId }: ListApiKeys): Promise<ApiKeyListDto> {
    await requireOrganization(this.directory, organizationId);
    const keys = await this.directory.listApiKeys(organizationId);
    return { data: keys.map((k) => ({ id: k.id, prefix: k.prefix, created_at: k.created_at, revoked_at: k.revoked_at })) };
  }
}
