import { Controller, Inject, Logger } from '@nestjs/common';
import { stepTimer } from '@app/metrics';
import { Ctx, EventPattern } from '@nestjs/microservices';
import { AiProviders, MAPPING_SAMPLE_ROWS, ProviderCallFailed, suggestMappingWithProvider } from '@app/ai-providers';
import { BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { MappingRule, ReviewNotice } from '@app/contracts';
import {
  headerNames,
  headersKey,
  isMadeUpHeaders,
  MAPPING_REMEMBERED_NOTICE,
  mappingFromRemembered,
  mergeSuggestions,
  readValueFix,
  runPhase,
  suggestMapping,
  type RunState,
} from '@app/domain';
import { DIRECTORY, type Directory } from '@app/directory';
import type { RunEventContext, StepCommand } from '@app/run-event-transport';
import { readSampleRows } from '@app/run-source';

interface Suggestion {
  mapping: MappingRule;
  origin: 'heuristic' | 'ai' | 'remembered';
  notices: ReviewNotice[];
  picklists?: Record<string, Record<string, string>>;
  header?: { input_has_header: boolean; first_row: string[] };
}

/**
 * Prepares the review once the source is parsed: the suggested mapping and the review
 * deadline. For a file whose headers were mapped and approved before (same organization,
 * schema and set of headers), the remembered mapping and picklist values; else the
 * provider's suggestion, checked and completed by our heuristic, for file runs that name a
 * provider; else the heuristic alone. A failed or unusable suggestion is a recoverable
 * review issue: the review opens with the heuristic and a notice. Remembers each approved
 * mapping of a file run for the next one.
 */
@Controller()
export class MappingHandlers {
  private readonly logger = new Logger(MappingHandlers.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(DIRECTORY) private readonly directory: Directory,
    private readonly providers: AiProviders,
  ) {}

  // The AI vendor may take minutes (three attempts of AI_TIMEOUT_MS): a claimed step, outside the bus's handler.
  @EventPattern('SourceParsed', { consumer: 'mapping', claimStep: true })
  async onSourceParsed(@Ctx() { step }: RunEventContext): Promise<StepCommand | undefined> {
    const run = await step.run();
    if (!run || runPhase(run) !== 'preparing_review') return;
    const done = stepTimer('review_preparation');
    const suggestion = await this.suggest(run);
    done();
    const now = new Date();
    return {
      command: {
        type: 'PrepareReview',
        mapping_rule: suggestion.mapping,
        mapping_origin: suggestion.origin,
        notices: suggestion.notices,
        ...(suggestion.picklists ? { picklists: suggestion.picklists } : {}),
        ...(suggestion.header ? { header: suggestion.header } : {}),
        review_expires_at: new Date(now.getTime() + this.config.reviewTtlSeconds * 1000).toISOString(),
        at: now.toISOString(),
      },
      step: 'review-prepared',
    };
  }

  /** A file run's approved mapping and picklist values, for the next file with the same headers. */
  @EventPattern('ReviewApproved', { consumer: 'mapping' })
  async onReviewApproved(@Ctx() { step }: RunEventContext): Promise<void> {
    const run = await step.run();
    if (!run || run.rows_origin !== 'file' || !run.mapping_rule || !run.review_approved_at) return;
    const picklists: Record<string, Record<string, string>> = {};
    for (const f of run.value_fixes ?? []) if (f.fix.kind === 'picklist') picklists[f.field] = f.fix.values;
    const parsed = run.parsed_headers ?? run.source_headers;
    // Keyed by the headers as the ingestion read them: the next such file is read the same way. A header the
    // reviewer found where the ingestion saw none is keyed by its names instead: column_1..N is what every
    // headerless file of that width reads as, and each would have lost its first record to this one's header.
    const keys = new Set([headersKey(run.input_has_header === true && isMadeUpHeaders(parsed) ? run.source_headers : parsed)]);
    // A header row picked under rows the read took for the header (a title block it does not find) is remembered by
    // the picked names too: the same pick in the next such file finds the columns as approved (the gateway looks).
    if (run.input_has_header === true && !isMadeUpHeaders(run.source_headers)) keys.add(headersKey(run.source_headers));
    for (const key of keys)
      await this.directory.rememberMapping({
        organization_id: run.organization_id,
        schema_id: run.schema.id,
        headers_key: key,
        mapping_rule: run.mapping_rule,
        picklists,
        ...(run.input_has_header !== null ? { input_has_header: run.input_has_header } : {}),
        run_id: run.id,
        approved_at: run.review_approved_at,
      });
  }

  /**
   * The mapping last approved for this organization, schema and set of headers, kept to the
   * fields the run's schema still has (new fields get the heuristic's column among those it leaves free), with the
   * picklist values that still fit; null when there is none.
   */
  private async remembered(run: RunState): Promise<Suggestion | null> {
    const find = (headers: string[]) => this.directory.findRememberedMapping(run.organization_id, run.schema.id, headersKey(headers));
    const readFirstRow = async () => (await readSampleRows(this.blobs, { ...run, input_has_header: false }, 1))[0] ?? [];
    let found = await find(run.source_headers);
    let firstRow: string[] | null = null;
    const callerSaid = run.input_has_header_override !== null && run.input_has_header_override !== undefined;
    if (run.input_has_header === false && !callerSaid) {
      // Read without a header: a header the reviewer found in a file whose first row reads as this one's is
      // remembered by its names (onReviewApproved). One remembered by column_1..N (before 2026-12-03) says nothing
      // of this file's first row.
      firstRow = await readFirstRow();
      const named = await find(headerNames(firstRow, true, run.source_headers.length));
      if (named?.input_has_header === true) found = named;
      else if (found?.input_has_header === true) found = null;
    }
    if (!found) return null;
    // The caller said whether the file has a header row: that answer stands. A mapping remembered under the other
    // answer names columns this reading does not have, and its header choice would take the first record as the
    // names, or deliver the names as a record.
    if (callerSaid && found.input_has_header !== undefined && found.input_has_header !== run.input_has_header) return null;
    const fields = run.schema.fields;
    // A remembered header choice other than the ingestion's guess: the headers come from the first row (or go).
    let header: Suggestion['header'];
    let headers = run.source_headers;
    if (found.input_has_header !== undefined && found.input_has_header !== run.input_has_header) {
      header = { input_has_header: found.input_has_header, first_row: firstRow ?? (await readFirstRow()) };
      headers = headerNames(header.first_row, header.input_has_header, run.source_headers.length);
    }
    const picklists = Object.fromEntries(
      Object.entries(found.picklists).filter(
        ([field, values]) => !('problems' in readValueFix({ kind: 'picklist', values }, null, fields[field])),
      ),
    );
    return {
      mapping: mappingFromRemembered(fields, found.mapping_rule, headers),
      origin: 'remembered',
      ...(header ? { header } : {}),
      notices: [MAPPING_REMEMBERED_NOTICE],
      ...(Object.keys(picklists).length ? { picklists } : {}),
    };
  }

  private async suggest(run: RunState): Promise<Suggestion> {
    const heuristic = suggestMapping(run.schema.fields, run.source_headers);
    // Extracted and synthetic records already carry the schema's field names.
    if (run.rows_origin !== 'file') return { mapping: heuristic, origin: 'heuristic', notices: [] };
    const remembered = await this.remembered(run);
    if (remembered) return remembered;
    if (!run.provider_id || run.dry_run) return { mapping: heuristic, origin: 'heuristic', notices: [] };
    const notice = (message: string): Suggestion => ({
      mapping: heuristic,
      origin: 'heuristic',
      notices: [{ code: 'ai_suggestion_failed', message }],
    });
    const provider = await this.directory.getProvider(run.organization_id, run.provider_id);
    if (!provider) return notice('The AI provider of this run no longer exists; the mapping was suggested by name matching.');
    try {
      const client = this.providers.clientFor(provider.provider, {
        model: provider.model,
        apiKey: provider.api_key,
        baseUrl: provider.base_url,
      });
      const sample = await readSampleRows(this.blobs, run, MAPPING_SAMPLE_ROWS);
      const checked = await suggestMappingWithProvider(client, run.schema.fields, run.source_headers, sample);
      if (checked.dropped.length > 0) this.logger.warn(`Run ${run.id}: dropped from the AI suggestion: ${checked.dropped.join('; ')}`);
      if (!Object.values(checked.mapping).some((h) => typeof h === 'string')) {
        return notice('The AI suggestion could not be used; the mapping was suggested by name matching.');
      }
      return { mapping: mergeSuggestions(checked.mapping, heuristic), origin: 'ai', notices: [] };
    } catch (err) {
      const reason = err instanceof ProviderCallFailed ? err.message : 'The provider call failed.';
      this.logger.warn(`Run ${run.id}: AI mapping suggestion failed: ${reason}`);
      // The reason is a sentence of its own ("OpenAI could not be reached."): it ends this one's first part.
      return notice(`The AI suggestion failed: ${reason} The mapping was suggested by name matching.`);
    }
  }
}
