export * from './ai-vendor.port';
export * from './ai-providers';
export * from './ai-tasks';
export { OPENAI_DEFAULT_BASE_URL } from './vendors/openai.client';
export { ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_VERSION } from './vendors/anthropic.client';
