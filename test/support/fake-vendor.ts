import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { listenOnLoopback } from './suite-resources';

export interface VendorRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}
export interface VendorReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  delayMs?: number;
}

export const OPENAI_KEY = 'sk-test-openai-secret-1234567890';
export const ANTHROPIC_KEY = 'sk-ant-test-secret-0987654321';

/**
 * A fake AI vendor on loopback speaking both real protocols: OpenAI Chat Completions
 * (`POST /v1/chat/completions`, `Authorization: Bearer`) and Anthropic Messages
 * (`POST /v1/messages`, `x-api-key` + `anthropic-version`). Wrong credentials get the
 * vendor's 401. Each request is recorded; `script` decides the next answers (status,
 * headers, delay), and `answer` gives the JSON result the "model" produces.
 */
export class FakeVendor {
  readonly requests: VendorRequest[] = [];
  /** Replies used in order before falling back to a 200 with `answer`. */
  script: VendorReply[] = [];
  /** The structured result, per schema name (`extracted_records`, `column_mapping`). */
  answer: (schemaName: string, request: VendorRequest) => unknown = () => ({});
  private server!: Server;
  baseUrl = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const request: VendorRequest = {
          path: req.url ?? '',
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
        };
        this.requests.push(request);
        const reply = this.reply(request);
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
          res.end(JSON.stringify(reply.body ?? {}));
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
    const listening = await listenOnLoopback(this.server, 'fake AI vendor');
    this.baseUrl = listening.baseUrl;
    this.close = listening.close;
  }

  private close: () => Promise<void> = async () => undefined;

  stop(): Promise<void> {
    return this.close();
  }

  reset(): void {
    this.requests.length = 0;
    this.script = [];
  }

  private reply(request: VendorRequest): VendorReply {
    if (request.path === '/v1/chat/completions') {
      if (request.headers.authorization !== `Bearer ${OPENAI_KEY}`) {
        return {
          status: 401,
          body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } },
        };
      }
    } else if (request.path === '/v1/messages') {
      if (request.headers['x-api-key'] !== ANTHROPIC_KEY || !request.headers['anthropic-version']) {
        return { status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } };
      }
    } else {
      return { status: 404, body: { error: { message: 'not found' } } };
    }
    const scripted = this.script.shift();
    if (scripted && scripted.status !== undefined && scripted.status !== 200) return scripted;
    const delayMs = scripted?.delayMs;
    return { ...this.success(request), delayMs };
  }

  private success(request: VendorRequest): VendorReply {
    if (request.path === '/v1/chat/completions') {
      const schemaName = request.body.response_format?.json_schema?.name;
      return {
        body: {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: request.body.model,
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: { role: 'assistant', content: JSON.stringify(this.answer(schemaName, request)), refusal: null },
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        },
      };
    }
    const tool = request.body.tool_choice?.name;
    return {
      body: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: request.body.model,
        stop_reason: 'tool_use',
        content: [{ type: 'tool_use', id: 'toolu_1', name: tool, input: this.answer(tool, request) }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    };
  }
}
