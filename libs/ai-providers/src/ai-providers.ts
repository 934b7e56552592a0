import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { ProviderCallFailed, type AiVendorClient, type VendorSettings } from './ai-vendor.port';
import { AnthropicClient } from './vendors/anthropic.client';
import { OpenAiClient } from './vendors/openai.client';

/** The vendors a provider record may name (its `provider` key), with their display names. */
export const SUPPORTED_VENDORS: Record<string, string> = { openai: 'OpenAI', anthropic: 'Anthropic' };

export const isSupportedVendor = (key: string): boolean => Object.hasOwn(SUPPORTED_VENDORS, key);

/** Picks the vendor adapter a provider record names. */
@Injectable()
export class AiProviders {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  clientFor(vendor: string, settings: VendorSettings): AiVendorClient {
    switch (vendor) {
      case 'openai':
        return new OpenAiClient(settings, this.config.ai);
      case 'anthropic':
        return new AnthropicClient(settings, this.config.ai);
      default:
        throw new ProviderCallFailed(`The provider "${vendor}" is not supported by this service.`, false);
    }
  }
}
