import type { AiCallConfig } from '@app/config';
import { ProviderCallFailed, type AiVendorClient, type StructuredRequest, type VendorSettings } from '../ai-vendor.port';
import { describeFailure, vendorHttp, type VendorAgents } from '../vendor-http';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

interface ChatCompletion {
  choices?: { finish_reason?: string; message?: { content?: string | null; refusal?: string | null } }[];
}

/**
 * OpenAI Chat Completions with Structured Outputs (`response_format: json_schema`, strict).
 * The same request serves any OpenAI-compatible server (Ollama, vLLM, …) through base_url.
 */
export class OpenAiClient implements AiVendorClient {
  private readonly http;

  constructor(
    private readonly settings: VendorSettings,
    private readonly ai: AiCallConfig,
    agents: VendorAgents,
  ) {
    const auth: Record<string, string> = settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
    this.http = vendorHttp('openai', (settings.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, ''), auth, ai, agents);
  }

  async generateJson(request: StructuredRequest): Promise<unknown> {
    const userContent: unknown[] = [{ type: 'text', text: request.text }];
    if (request.image) {
      userContent.push({ type: 'image_url', image_url: { url: `data:${request.image.mediaType};base64,${request.image.base64}` } });
    }
    let answer: ChatCompletion;
    try {
      answer = (
        await this.http.post<ChatCompletion>('/chat/completions', {
          model: this.settings.model,
          messages: [
            { role: 'system', content: request.instructions },
            { role: 'user', content: userContent },
          ],
          response_format: { type: 'json_schema', json_schema: { name: request.schemaName, strict: true, schema: request.jsonSchema } },
          max_completion_tokens: this.ai.maxOutputTokens,
        })
      ).data;
    } catch (err) {
      throw describeFailure('OpenAI', err);
    }
    const choice = answer?.choices?.[0];
    if (choice?.message?.refusal) throw new ProviderCallFailed('OpenAI refused to answer.', false);
    if (choice?.finish_reason === 'length') throw new ProviderCallFailed("OpenAI's answer was cut off (too long).", false);
    const content = choice?.message?.content;
    if (typeof content !== 'string') throw new ProviderCallFailed('OpenAI answered without content.', false);
    try {
      return JSON.parse(content);
    } catch {
      throw new ProviderCallFailed("OpenAI's answer is not valid JSON.", false);
    }
  }
}
