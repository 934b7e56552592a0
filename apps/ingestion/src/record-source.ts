import { Readable } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AiProviders, ProviderCallFailed, extractRows, type ExtractionInput } from '@app/ai-providers';
import { BLOB_KEYS, BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { STAGES, fileExtension, imageMediaTypeOf, imageMatchesExtension, runError, syntheticRows, type RunState } from '@app/domain';
import { DIRECTORY, type Directory } from '@app/directory';
import { csvChunks } from '@app/tabular';
import type { IngestionOutcome } from '@app/run-source';

const IMAGE_SIGNATURE_BYTES = 64;

/**
 * Runs whose rows are records rather than a file's lines: raw text and images, whose
 * records the organization's AI provider extracts, and dry runs, whose records are
 * synthetic. The records are stored as CSV (rows_key), so review and output read them
 * like any parsed file.
 */
@Injectable()
export class RecordSource {
  private readonly logger = new Logger(RecordSource.name);

  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly providers: AiProviders,
  ) {}

  /** A dry run's records: made from the schema alone; no provider, no uploaded content. */
  synthetic(run: RunState): Promise<IngestionOutcome> {
    return this.store(run, syntheticRows(run.schema.fields), 'synthetic');
  }

  async extractFromText(run: RunState): Promise<IngestionOutcome> {
    let text: string;
    try {
      text = (await this.readAll(run.source_key)).toString('utf8');
    } catch (err) {
      this.logger.error(`Run ${run.id}: the stored content could not be read: ${(err as Error).message}`);
      return { failed: runError('storageFailed', STAGES.ingestion) };
    }
    return this.extract(run, { text });
  }

  async extractFromImage(run: RunState): Promise<IngestionOutcome> {
    let bytes: Buffer;
    try {
      bytes = await this.readAll(run.source_key, this.config.ai.maxImageBytes + 1);
    } catch (err) {
      this.logger.error(`Run ${run.id}: the stored image could not be read: ${(err as Error).message}`);
      return { failed: runError('storageFailed', STAGES.ingestion) };
    }
    const mismatch = this.checkImage(run, bytes);
    if (mismatch) return mismatch;
    if (bytes.length > this.config.ai.maxImageBytes) {
      return { failed: runError('imageTooLarge', STAGES.ingestion, { context: [`max ${this.config.ai.maxImageBytes} bytes`] }) };
    }
    return this.extract(run, {
      image: { mediaType: imageMediaTypeOf(bytes.subarray(0, IMAGE_SIGNATURE_BYTES))!, base64: bytes.toString('base64') },
    });
  }

  /** An image whose bytes are not the kind its name says fails before anything is sent anywhere. */
  checkImage(run: RunState, bytes: Buffer): IngestionOutcome | null {
    const ext = fileExtension(run.filename ?? '');
    if (bytes.length === 0) return { failed: runError('emptyFile', STAGES.ingestion, { message: 'The uploaded image is empty.' }) };
    if (imageMatchesExtension(ext, bytes.subarray(0, IMAGE_SIGNATURE_BYTES))) return null;
    const actual = imageMediaTypeOf(bytes.subarray(0, IMAGE_SIGNATURE_BYTES));
    return {
      failed: runError('contentMismatch', STAGES.ingestion, {
        message: `The file is named .${ext} but its content is ${actual ? `an image of type ${actual}` : 'not a JPEG, PNG or WebP image'}.`,
      }),
    };
  }

  private async extract(run: RunState, input: ExtractionInput): Promise<IngestionOutcome> {
    const provider = run.provider_id ? await this.directory.getProvider(run.organization_id, run.provider_id) : null;
    if (!provider) return { failed: runError('providerNotFound', STAGES.ingestion) };
    let rows: string[][];
    try {
      const client = this.providers.clientFor(provider.provider, {
        model: provider.model,
        apiKey: provider.api_key,
        baseUrl: provider.base_url,
      });
      rows = await extractRows(client, run.schema.fields, input);
    } catch (err) {
      const failure = err instanceof ProviderCallFailed ? err : new ProviderCallFailed('The provider call failed.', false);
      // The message names the vendor and status only: never the secret or the content.
      this.logger.warn(`Run ${run.id}: extraction failed: ${failure.message}`);
      return {
        failed: runError('extractionFailed', STAGES.ingestion, {
          message: `The AI provider could not extract records: ${failure.message}`,
          retryable: failure.retryable,
        }),
      };
    }
    if (rows.length === 0) return { failed: runError('extractionEmpty', STAGES.ingestion) };
    return this.store(run, rows, 'extracted');
  }

  private async store(run: RunState, rows: string[][], origin: 'extracted' | 'synthetic'): Promise<IngestionOutcome> {
    const headers = Object.keys(run.schema.fields);
    const key = BLOB_KEYS.rows(run.id);
    const records = rows.map((row) => Object.fromEntries(headers.map((h, i) => [h, row[i] ?? ''])));
    try {
      await this.blobs.put(
        key,
        Readable.from(
          csvChunks(
            headers,
            (async function* () {
              yield records;
            })(),
            { neutralizeFormulas: false },
          ),
        ),
        { contentType: 'text/csv' },
      );
    } catch (err) {
      this.logger.error(`Run ${run.id}: the records could not be stored: ${(err as Error).message}`);
      return { failed: runError('storageFailed', STAGES.ingestion) };
    }
    return {
      parsed: {
        source_headers: headers,
        input_has_header: true,
        total_rows: rows.length,
        source_format: 'delimited',
        delimiter: ',',
        encoding: 'utf-8',
        rows_key: key,
        rows_origin: origin,
      },
    };
  }

  /** The whole blob (raw text is at most 50,000 characters; images are bounded by `limit`). */
  private async readAll(key: string, limit = Number.MAX_SAFE_INTEGER): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of await this.blobs.openRead(key)) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= limit) break;
    }
    return Buffer.concat(chunks);
  }
}
