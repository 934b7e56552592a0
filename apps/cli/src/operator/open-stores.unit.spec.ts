import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseSecretsKey } from '@app/config';
import { operatorConfig, operatorConfigWithKeys } from './open-stores';

describe("the operator commands' configuration", () => {
  it('is not refused for an ADMIN_TOKEN the store commands never use; a bad store setting still is, as a usage error', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-operator-'));
    writeFileSync(join(dataDir, 'events.sqlite'), '');
    expect(operatorConfig(['event store'], { DATA_DIR: dataDir, ADMIN_TOKEN: 'short' }).dataDir).toBe(dataDir);
    expect(() => operatorConfig(['event store'], { DATA_DIR: dataDir, EVENT_STORE: 'paper' })).toThrow(
      'Invalid configuration: EVENT_STORE must be sqlite or eventstoredb, not paper.',
    );
  });

  it('refuses a DATA_DIR without the embedded store the command opens, and creates nothing there (no stores, no key files)', () => {
    const empty = mkdtempSync(join(tmpdir(), 'cli-operator-'));
    expect(() => operatorConfig(['event store'], { DATA_DIR: empty })).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: expect.stringContaining(`No event store in ${empty} (DATA_DIR=${empty}): events.sqlite is not there.`),
      }),
    );
    expect(() => operatorConfig(['event store'], { DATA_DIR: empty })).toThrow("DATA_DIR must point at the service's data folder");
    const missing = join(empty, 'no-such-folder');
    expect(() => operatorConfig(['dead letters'], { DATA_DIR: missing })).toThrow(`No dead letters in ${missing}`);
    writeFileSync(join(empty, 'events.sqlite'), '');
    expect(() => operatorConfig(['event store', 'read model'], { DATA_DIR: empty })).toThrow(
      `No read model in ${empty} (DATA_DIR=${empty}): read-model.sqlite is not there.`,
    );
    expect(readdirSync(empty)).toEqual(['events.sqlite']);
    expect(existsSync(missing)).toBe(false);
  });

  it('says which folder an unset DATA_DIR meant (./data), and checks no file of a store that is not embedded', () => {
    const cwd = process.cwd();
    const here = mkdtempSync(join(tmpdir(), 'cli-operator-cwd-'));
    process.chdir(here);
    try {
      expect(() => operatorConfig(['read model'], {})).toThrow(
        `No read model in ${join(here, 'data')} (DATA_DIR is not set, so the default ./data): read-model.sqlite is not there.`,
      );
      expect(readdirSync(here)).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
    const empty = mkdtempSync(join(tmpdir(), 'cli-operator-'));
    const distributed = {
      DATA_DIR: empty,
      EVENT_STORE: 'eventstoredb',
      EVENTSTORE_URL: 'esdb://localhost:2113?tls=false',
      SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
      SIGNING_SECRET: 'x'.repeat(32),
    };
    expect(operatorConfig(['event store'], distributed).eventStore.kind).toBe('eventstoredb');
    expect(readdirSync(empty)).toEqual([]);
  });

  it("writes no key file for the stores' commands when no key is configured; secrets:reencrypt reads the service's own key", () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-operator-'));
    const keyless = { DATA_DIR: dataDir, EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: 'esdb://localhost:2113?tls=false' };
    expect(operatorConfig(['event store'], keyless).eventStore.kind).toBe('eventstoredb');
    expect(readdirSync(dataDir)).toEqual([]);

    writeFileSync(join(dataDir, 'read-model.sqlite'), '');
    const key = randomBytes(32).toString('base64');
    writeFileSync(join(dataDir, 'secrets.key'), key, { mode: 0o600 });
    writeFileSync(join(dataDir, 'signing.key'), randomBytes(32).toString('base64'), { mode: 0o600 });
    const withKeys = operatorConfigWithKeys(['read model'], { DATA_DIR: dataDir });
    expect(withKeys.secrets.current.id).toBe(parseSecretsKey(key, 'test').id);
    expect(operatorConfig(['read model'], { DATA_DIR: dataDir }).secrets.current.id).not.toBe(withKeys.secrets.current.id);
  });
});
