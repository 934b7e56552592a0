/** One request for a JSON answer of a given shape; an image is optional (vision input). */
export interface StructuredRequest {
  /** What the model is asked to do (the system prompt). */
  instructions: string;
  /** The user turn: the text to work on. */
  text: string;
  image?: { mediaType: string; base64: string };
  /** Name of the answer's shape ([a-zA-Z0-9_-], at most 64 characters). */
  schemaName: string;
  jsonSchema: Record<string, unknown>;
}

/** A vendor's API, reduced to what the service needs: a JSON answer that follows a schema. */
export interface AiVendorClient {
  generateJson(request: StructuredRequest): Promise<unknown>;
}

/** What a provider record says about how to reach its vendor. */
export interface VendorSettings {
  model: string;
  /** The vendor secret. Sent only in the vendor's auth header; never logged. */
  apiKey: string | null;
  /** Overrides the vendor's public endpoint (e.g. a local OpenAI-compatible server). */
  baseUrl: string | null;
}

/**
 * A call to a vendor that did not give a usable answer. The message is safe to show:
 * it never holds the secret, the request or the vendor's answer body.
 */
export class ProviderCallFailed extends Error {
  constructor(
    message: string,
    /** Whether the same call might succeed later (429, 5xx, timeouts, network). */
    readonly retryable: boolean,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}
