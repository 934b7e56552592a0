import { readFileSync } from 'node:fs';
import { OPERATOR_COMMANDS } from './operator/operator-commands';

/**
 * Operator CLI: the admin API from a shell. Talks to a running service at
 * SERVICE_URL (default http://localhost:$PORT) with ADMIN_TOKEN.
 */
const base = (process.env.SERVICE_URL || `http://localhost:${process.env.PORT || 3000}`).replace(/\/+$/, '');
const token = process.env.ADMIN_TOKEN;

const COMMANDS: Record<string, { usage: string; run: (a: string[]) => [method: string, path: string, body?: unknown] }> = {
  'org:create': {
    usage: 'org:create <name> [webhook_url]',
    run: ([name, url]) => ['POST', '/organizations', { name, webhook_url: url ?? null }],
  },
  'key:create': { usage: 'key:create <org>', run: ([org]) => ['POST', `/organizations/${org}/api-keys`] },
  'key:revoke': { usage: 'key:revoke <org> <key-id>', run: ([org, id]) => ['DELETE', `/organizations/${org}/api-keys/${id}`] },
  'webhook:set': {
    usage: 'webhook:set <org> <url|null>',
    run: ([org, url]) => ['PUT', `/organizations/${org}/webhook`, { url: url === 'null' ? null : url }],
  },
  'webhook:rotate-secret': {
    usage: 'webhook:rotate-secret <org>',
    run: ([org]) => ['POST', `/organizations/${org}/webhook/rotate-secret`],
  },
  'quota:set': {
    usage: 'quota:set <org> <n|null>',
    run: ([org, n]) => ['PUT', `/organizations/${org}/quota`, { review_preparations: n === 'null' ? null : Number(n) }],
  },
  'schema:create': {
    usage: 'schema:create <org> <file.json with {name, fields}>',
    run: ([org, f]) => ['POST', `/organizations/${org}/schemas`, JSON.parse(readFileSync(f, 'utf8'))],
  },
  'schema:update': {
    usage: 'schema:update <org> <id> <file.json>',
    run: ([org, id, f]) => ['PUT', `/organizations/${org}/schemas/${id}`, JSON.parse(readFileSync(f, 'utf8'))],
  },
  'schema:delete': { usage: 'schema:delete <org> <id>', run: ([org, id]) => ['DELETE', `/organizations/${org}/schemas/${id}`] },
  'provider:create': {
    usage: 'provider:create <org> <file.json with {name, provider, model, ...}>',
    run: ([org, f]) => ['POST', `/organizations/${org}/providers`, JSON.parse(readFileSync(f, 'utf8'))],
  },
  'provider:update': {
    usage: 'provider:update <org> <id> <file.json>',
    run: ([org, id, f]) => ['PUT', `/organizations/${org}/providers/${id}`, JSON.parse(readFileSync(f, 'utf8'))],
  },
  'provider:delete': { usage: 'provider:delete <org> <id>', run: ([org, id]) => ['DELETE', `/organizations/${org}/providers/${id}`] },
};

async function main(): Promise<number> {
  const [name, ...args] = process.argv.slice(2);
  if (name && OPERATOR_COMMANDS[name]) return OPERATOR_COMMANDS[name].run(args);
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    console.log(`usage: npm run cli -- <command> ...   (SERVICE_URL=${base}, ADMIN_TOKEN required)\n`);
    for (const c of Object.values(COMMANDS)) console.log(`  ${c.usage}`);
    console.log(`\noperator commands (on the stores in DATA_DIR; no ADMIN_TOKEN needed):\n`);
    for (const c of Object.values(OPERATOR_COMMANDS)) console.log(`  ${c.usage}`);
    return name && name !== 'help' ? 2 : 0;
  }
  if (!token) {
    console.error('ADMIN_TOKEN is not set.');
    return 2;
  }
  const [method, path, body] = command.run(args);
  const res = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (text) console.log(JSON.stringify(JSON.parse(text), null, 2));
  return res.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
