import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operatorConfig } from './open-stores';

describe("the operator commands' configuration", () => {
  it('is not refused for an ADMIN_TOKEN the store commands never use; a bad store setting still is, as a usage error', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-operator-'));
    expect(operatorConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: 'short' }).dataDir).toBe(dataDir);
    expect(() => operatorConfig({ DATA_DIR: dataDir, EVENT_STORE: 'paper' })).toThrow(
      'Invalid configuration: EVENT_STORE must be sqlite or eventstoredb, not paper.',
    );
  });
});
