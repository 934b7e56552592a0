/**
 * ESLint: typescript-eslint's type-checked recommended rules on every TypeScript file,
 * ESLint's recommended rules on the JavaScript ones (scripts, bench), and Prettier owns formatting (eslint-config-prettier turns off the
 * rules that would fight it). `npm run lint` runs it with `prettier --check` and knip.
 */
const eslint = require('@eslint/js');
const { defineConfig } = require('eslint/config');
const prettier = require('eslint-config-prettier');
const globals = require('globals');
const tseslint = require('typescript-eslint');

module.exports = defineConfig(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'data/',
      'coverage/',
      '.tmp/',
      'test-artifacts/',
      'bench/.work/',
      // Built by scripts/build-review-page.js from the TypeScript in review/page and console/page.
      'apps/gateway/src/review/web/review.js',
      'apps/gateway/src/console/web/console.js',
    ],
  },
  eslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      // An async method without await is how a synchronous implementation (better-sqlite3,
      // the in-process bus, test fakes) fulfils an async port: a throw still becomes a
      // rejected promise, as the port's callers expect.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore names what is deliberately unused (an omitted key, a callback's
      // unused parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }] },
  },
  {
    // The review page runs in the reviewer's browser.
    files: ['apps/gateway/src/review/page/**/*.{ts,tsx}', 'apps/gateway/src/web-shared/page/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The console runs in the member's browser. Its event handlers are async (a call to the API,
    // then feedback): Preact ignores what a handler returns, and each handler reports its own errors.
    files: ['apps/gateway/src/console/page/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }] },
  },
  {
    // Tests read JSON bodies, which are `any` by nature: asserting their shape with
    // expect() (and the OpenAPI conformance check) is the point of the test, so the
    // no-unsafe-* rules that flag every such member access stay on for production code only.
    files: ['**/*.spec.ts', 'test/**/*.ts', 'libs/*/src/testing/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  prettier,
);
