import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { guardedAgents } from '@app/url-safety';
import { ProviderCallFailed, type AiVendorClient, type VendorSettings } from './ai-vendor.port';
import type { VendorAgents } from './vendor-http';
import { ANTHROPIC_DEFAULT_BASE_URL, AnthropicClient } from './vendors/anthropic.client';
import { OPENAI_DEFAULT_BASE_URL, OpenAiClient } from './vendors/openai.client';

/** The vendors a provider record may name (its `provider` key), with their display names. */
export const SUPPORTED_VENDORS: Record<string, string> = { openai: 'OpenAI', anthropic: 'Anthropic' };

export const isSupportedVendor = (key: string): boolean => Object.hasOwn(SUPPORTED_VENDORS, key);

/**
 * Where a provider's calls (and its API key) go: its base_url, or the vendor's public
 * endpoint. Normalised (parsed, no trailing slash) so that two spellings of one address compare equal.
 */
export function vendorEndpoint(vendor: string, baseUrl: string | null): string {
  const raw = baseUrl ?? (vendor === 'anthropic' ? ANTHROPIC_DEFAULT_BASE_URL : vendor === 'openai' ? OPENAI_DEFAULT_BASE_URL : '');
  try {
    return new URL(raw).href.replace(/\/+$/, '');
  } catch {
    return raw;
  }
}

/**
 * Picks the vendor adapter a provider record names. Every client connects through the same
 * guarded agents: a provider's base_url may only reach public addresses (or the exact ones
 * in AI_ALLOWED_ADDRESSES), checked on the resolved address at connect time.
 */
@Injectable()
export class AiProviders {
  private readonly agents: VendorAgents;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.agents = guardedAgents(config.ai.allowedAddresses);
  }

  clientFor(vendor: string, settings: VendorSettings): AiVendorClient {
    // Registration refuses plain http in production; a base_url stored before that is refused here.
    if (this.config.production && settings.baseUrl && !/^https:/i.test(settings.baseUrl)) {
      throw new ProviderCallFailed("The provider's base URL must use HTTPS.", false);
    }
    switch (vendor) {
      case 'openai':
        return new OpenAiClient(settings, this.config.ai, this.agents);
      case 'anthropic':
        return new AnthropicClient(settings, this.config.ai, this.agents);
      default:
        throw new ProviderCallFailed(`The provider "${vendor}" is not supported by this service.`, false);
    }
  }
}
