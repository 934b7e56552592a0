import type { AiCallConfig } from '@app/config';
import { ProviderCallFailed, type AiVendorClient, type StructuredRequest, type VendorSettings } from '../ai-vendor.port';
import { describeFailure, vendorHttp, type VendorAgents } from '../vendor-http';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';

interface MessagesAnswer {
  stop_reason?: string;
  content?: { type: string; name?: string; input?: unknown }[];
}

/**
 * Anthropic Messages API. A JSON answer of a given shape is asked for as a forced tool call:
 * one tool whose input_schema is the shape, and tool_choice naming it; the answer is its input.
 */
export class AnthropicClient implements AiVendorClient {
  private readonly http;

  constructor(
    private readonly settings: VendorSettings,
    private readonly ai: AiCallConfig,
    agents: VendorAgents,
  ) {
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (settings.apiKey) headers['x-api-key'] = settings.apiKey;
    this.http = vendorHttp('anthropic', (settings.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, ''), headers, ai, agents);
  }

  async generateJson(request: StructuredRequest): Promise<unknown> {
    const content: unknown[] = [];
    if (request.image)
      content.push({ type: 'image', source: { type: 'base64', media_type: request.image.mediaType, data: request.image.base64 } });
    content.push({ type: 'text', text: request.text });
    let answer: MessagesAnswer;
    try {
      answer = (
        await this.http.post<MessagesAnswer>('/v1/messages', {
          model: this.settings.model,
          max_tokens: this.ai.maxOutputTokens,
          system: request.instructions,
          messages: [{ role: 'user', content }],
          tools: [{ name: request.schemaName, description: 'Record the answer in this exact shape.', input_schema: request.jsonSchema }],
          tool_choice: { type: 'tool', name: request.schemaName },
        })
      ).data;
    } catch (err) {
      throw describeFailure('Anthropic', err);
    }
    if (answer?.stop_reason === 'max_tokens') throw new ProviderCallFailed("Anthropic's answer was cut off (too long).", false);
    const call = answer?.content?.find((c) => c.type === 'tool_use' && c.name === request.schemaName);
    if (!call || call.input === undefined) throw new ProviderCallFailed('Anthropic answered without the requested result.', false);
    return call.input;
  }
}
