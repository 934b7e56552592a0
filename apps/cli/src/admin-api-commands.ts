import { type Command, Option } from 'commander';
import { MEMBER_ROLES } from '@app/accounts/accounts.port';
import { type AdminRequest, adminApiTarget, segment, sendAdminRequest, serviceUrl } from './admin-api-client';
import { API_KEY_NAME_MAX, apiKeyName, jsonFile, nonEmpty, nonNegativeIntegerOrNull, stringOrNull } from './argument-parsers';
import { operationFailed } from './exit-codes';

/**
 * Commands that call the admin API of a running service (docs/api.md, "Admin API"): the answer is
 * printed on stdout as JSON; an error answer ends with exit code 1.
 */
export function registerAdminApiCommands(program: Command): void {
  program.commandsGroup('Admin API commands (call the running service at SERVICE_URL with ADMIN_TOKEN):');

  adminCommand(program, 'org:create', 'create an organization; prints its id, first API key (and its id) and webhook secret')
    .argument('<name>', "the organization's name")
    .argument('[webhook-url]', 'default webhook URL for its runs (none when left out)')
    .action((name: string, webhookUrl: string | undefined) =>
      callAdminApi({ method: 'POST', path: '/organizations', body: { name, webhook_url: webhookUrl ?? null } }),
    );

  adminCommand(program, 'invitation:create', "invite a person to an organization's console; prints the invitation link (send it to them)")
    .argument('<org>', 'organization id', nonEmpty)
    .argument('<email>', "the person's e-mail address", nonEmpty)
    .addOption(new Option('--role <role>', 'owner, admin or viewer').choices(MEMBER_ROLES).default('owner'))
    .action((org: string, email: string, options: { role: string }) =>
      callAdminApi({ method: 'POST', path: `/organizations/${segment(org)}/invitations`, body: { email, role: options.role } }),
    );

  adminCommand(program, 'key:create', 'issue a new API key for an organization; prints the key (shown only once)')
    .argument('<org>', 'organization id', nonEmpty)
    .option('--name <name>', `what the key is for, shown in key lists (up to ${API_KEY_NAME_MAX} characters)`, apiKeyName)
    .action((org: string, options: { name?: string }) =>
      callAdminApi({
        method: 'POST',
        path: `/organizations/${segment(org)}/api-keys`,
        body: options.name === undefined ? undefined : { name: options.name },
      }),
    );

  adminCommand(program, 'key:list', "list an organization's API keys: id, prefix, name, created_at, revoked_at (never the keys)")
    .argument('<org>', 'organization id', nonEmpty)
    .action((org: string) => callAdminApi({ method: 'GET', path: `/organizations/${segment(org)}/api-keys` }));

  adminCommand(program, 'key:revoke', 'revoke an API key of an organization')
    .argument('<org>', 'organization id', nonEmpty)
    .argument('<key-id>', 'id of the API key (as key:create, key:list or org:create printed it)', nonEmpty)
    .action((org: string, keyId: string) =>
      callAdminApi(
        { method: 'DELETE', path: `/organizations/${segment(org)}/api-keys/${segment(keyId)}` },
        `Revoked API key ${keyId} of organization ${org}.`,
      ),
    );

  adminCommand(program, 'webhook:set', "set or remove an organization's default webhook URL")
    .argument('<org>', 'organization id', nonEmpty)
    .argument('<url>', 'the webhook URL, or null to remove it', stringOrNull)
    .action((org: string, url: string | null) =>
      callAdminApi({ method: 'PUT', path: `/organizations/${segment(org)}/webhook`, body: { url } }),
    );

  adminCommand(program, 'webhook:rotate-secret', "replace an organization's webhook signing secret; prints the new one")
    .argument('<org>', 'organization id', nonEmpty)
    .action((org: string) => callAdminApi({ method: 'POST', path: `/organizations/${segment(org)}/webhook/rotate-secret` }));

  adminCommand(program, 'quota:set', "set an organization's quota of review preparations")
    .argument('<org>', 'organization id', nonEmpty)
    .argument('<limit>', 'how many review preparations it may use, or null for no limit', nonNegativeIntegerOrNull)
    .action((org: string, limit: number | null) =>
      callAdminApi({ method: 'PUT', path: `/organizations/${segment(org)}/quota`, body: { review_preparations: limit } }),
    );

  adminCommand(program, 'schema:create', 'create a target schema for an organization from a JSON file')
    .argument('<org>', 'organization id', nonEmpty)
    .argument('<file>', 'JSON file with the schema: {"name": ..., "fields": {...}} (docs/api.md, "Admin API")', jsonFile)
    .action((org: string, schema: unknown) =>
      callAdminApi({ method: 'POST', path: `/organizations/${segment(org)}/schemas`, body: schema }),
    );

  adminCommand(program, 'schema:update', "replace a schema's name and fields from a JSON file")
    .argument('<org>', 'organization id', nonEmpty)
    .argument('<schema-id>', 'id of the schema', nonEmpty)
    .argument('<file>', 'JSON file with the schema: {"name": ..., "fields": {...}}', jsonFile)
    .action((org: string, id: string, schema: unknown) =>
      callAdminApi({ method: 'PUT', path: `/organizations/${segment(org)}/schemas/${segment(id)}`, body: schema }),
    );

  adminCommand(program, 'schema:delete', 'delete a schema')
    .argument('<org>', 'organization id', nonEmpty)
    .argument('<schema-id>', 'id of the schema', nonEmpty)
    .action((org: string, id: string) =>
      callAdminApi(
        { method: 'DELETE', path: `/organizations/${segment(org)}/schemas/${segment(id)}` },
        `Deleted schema ${id} of organization ${org}.`,
      ),
    );

  adminCommand(program, 'provider:create', 'configure an AI provider for an organization from a JSON file')
    .argument('<org>', 'organization id', nonEmpty)
    .argument(
      '<file>',
      'JSON file with the provider: {"name": ..., "provider": ..., "model": ..., ...} (docs/api.md, "Admin API")',
      jsonFile,
    )
    .action((org: string, provider: unknown) =>
      callAdminApi({ method: 'POST', path: `/organizations/${segment(org)}/providers`, body: provider }),
    );

  adminCommand(program, 'provider:update', "replace an AI provider's settings from a JSON file")
    .argument('<org>', 'organization id', nonEmpty)
    .argument('<provider-id>', 'id of the provider', nonEmpty)
    .argument('<file>', 'JSON file with the provider: {"name": ..., "provider": ..., "model": ..., ...}', jsonFile)
    .action((org: string, id: string, provider: unknown) =>
      callAdminApi({ method: 'PUT', path: `/organizations/${segment(org)}/providers/${segment(id)}`, body: provider }),
    );

  adminCommand(program, 'provider:delete', 'delete an AI provider')
    .argument('<org>', 'organization id', nonEmpty)
    .argument('<provider-id>', 'id of the provider', nonEmpty)
    .action((org: string, id: string) =>
      callAdminApi(
        { method: 'DELETE', path: `/organizations/${segment(org)}/providers/${segment(id)}` },
        `Deleted AI provider ${id} of organization ${org}.`,
      ),
    );
}

function adminCommand(program: Command, name: string, description: string): Command {
  return program
    .command(name)
    .description(description)
    .addHelpText(
      'after',
      () =>
        '\nEnvironment:\n' +
        `  SERVICE_URL  the running service (now ${serviceUrl()}; default http://localhost:$PORT)\n` +
        "  ADMIN_TOKEN  the service's admin token (required)",
    );
}

/**
 * Sends the request, prints the answer; an error answer is an operation failure (exit 1).
 * `done` is printed for a success without an answer (a 204 of a delete or revoke), so it does not pass in silence.
 */
async function callAdminApi(request: AdminRequest, done?: string): Promise<void> {
  const response = await sendAdminRequest(adminApiTarget(), request);
  if (response.body !== undefined) console.log(typeof response.body === 'string' ? response.body : JSON.stringify(response.body, null, 2));
  else if (response.ok && done) console.log(done);
  if (!response.ok) throw operationFailed(`The admin API answered ${response.status} ${response.statusText}.`.replace(/ \.$/, '.'));
}
