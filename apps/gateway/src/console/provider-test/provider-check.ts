import { Inject, Injectable } from '@nestjs/common';
import { AiProviders, ProviderCallFailed } from '@app/ai-providers';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { ProviderRecord } from '@app/directory';

export interface ProviderCheck {
  ok: boolean;
  message: string;
  duration_ms: number;
}

/** A test call waits at most this long, and is made once (no retries: the person is waiting). */
const CHECK_TIMEOUT_MS = 15_000;

/**
 * "Test connection" (docs/console.md): one small structured-answer call to the provider's vendor
 * through the same adapters, address guard and key as a run's calls. The message says what went
 * wrong in words a person can act on; it never holds the key or the vendor's answer.
 */
@Injectable()
export class ProviderConnectionCheck {
  private readonly providers: AiProviders;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.providers = new AiProviders({
      ...config,
      ai: { ...config.ai, maxAttempts: 1, timeoutMs: Math.min(config.ai.timeoutMs, CHECK_TIMEOUT_MS) },
    });
  }

  async check(provider: ProviderRecord): Promise<ProviderCheck> {
    const started = Date.now();
    const done = (ok: boolean, message: string): ProviderCheck => ({ ok, message, duration_ms: Date.now() - started });
    if (!provider.api_key) return done(false, 'No API key is stored for this provider: edit it and add the vendor key.');
    try {
      const client = this.providers.clientFor(provider.provider, {
        model: provider.model,
        apiKey: provider.api_key,
        baseUrl: provider.base_url,
      });
      await client.generateJson({
        instructions: 'This is a connection test. Answer with {"ok": true}.',
        text: 'ping',
        schemaName: 'connection_test',
        jsonSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false },
      });
      return done(true, `The ${provider.model} model answered.`);
    } catch (err) {
      if (!(err instanceof ProviderCallFailed))
        return done(false, 'The call failed for an unexpected reason; the service log has the details.');
      return done(false, explain(err));
    }
  }
}

/** The vendor's refusal, in words a person can act on. */
function explain(err: ProviderCallFailed): string {
  if (err.status === 401 || err.status === 403) return 'The vendor refused the API key. Check that it is right and active.';
  if (err.status === 404) return 'The vendor does not know this model (or the base URL is wrong). Check the model name.';
  if (err.status === 429) return 'The vendor is limiting requests for this key right now. Try again in a minute.';
  return err.message;
}
