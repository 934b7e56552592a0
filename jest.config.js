/** Jest runs TypeScript through ts-jest in transpile-only mode (isolatedModules):
 * `npm run typecheck` is the type gate, tests stay fast. */
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.json');

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  moduleNameMapper: pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' }),
  testTimeout: 30000,
  // Closes whatever a test file started and left open (test/support/suite-resources.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/jest-setup.ts'],
  // One TMPDIR per run, removed when the run ends (test/support/test-temp-dir.js).
  globalSetup: '<rootDir>/test/support/test-temp-dir.setup.js',
  globalTeardown: '<rootDir>/test/support/test-temp-dir.teardown.js',
};
