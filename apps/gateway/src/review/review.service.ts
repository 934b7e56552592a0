import { Inject, Injectable } from '@nestjs/common';
import { effectiveReviewState, type RunCommand, type RunState } from '@app/domain';
import { ProjectionWaiter } from '@app/processing';
import { RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { RunCommandHandler } from '@app/runs';
import { ApiError } from '../http/api-error';
import { RunLinks } from '@app/run-links';
import { supportedLocale } from './review-web';

export type ReviewPhase = 'preparing' | 'active' | 'approved' | 'canceled' | 'expired' | 'failed';

/** What the hosted review page shows and does; every call is authorized by the link's signature. */
@Injectable()
export class ReviewService {
  constructor(
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    private readonly commands: RunCommandHandler,
    private readonly waiter: ProjectionWaiter,
    private readonly links: RunLinks,
  ) {}

  async authorize(runId: string, signature: unknown): Promise<RunState> {
    if (!this.links.isValidReviewSignature(runId, signature)) throw ApiError.forbidden('invalid_signature', 'This review link is invalid.');
    const run = (await this.readModel.getRun(runId)) ?? (await this.commands.load(runId)).state;
    if (!run) throw ApiError.forbidden('invalid_signature', 'This review link is invalid.');
    return run;
  }

  view(run: RunState, now = new Date()) {
    const reviewState = effectiveReviewState(run, now);
    const phase: ReviewPhase = run.status === 'failed' ? 'failed' : reviewState === null ? 'preparing' : reviewState;
    return {
      run_id: run.id,
      phase,
      locale: supportedLocale(run.locale),
      appearance: run.appearance,
      filename: run.filename,
      // The encoding the uploaded text file was read in (not for workbooks or extracted records).
      encoding: run.rows_origin === 'file' && run.source_format === 'delimited' ? run.encoding : null,
      fields: Object.entries(run.schema.fields).map(([name, f]) => ({
        name,
        label: run.column_labels?.[name] ?? f.label ?? name,
        description: f.description,
        data_type: f.data_type,
        is_required: f.is_required,
      })),
      source_headers: run.source_headers,
      mapping_rule: run.mapping_rule,
      mapping_version: run.mapping_version,
      total_rows: run.total_rows,
      processed_rows: run.processed_rows,
      review_expires_at: run.review_expires_at,
      review_approved_at: run.review_approved_at,
      review_canceled_at: run.review_canceled_at,
      success_callback: run.success_callback,
      cancel_callback: run.cancel_callback,
      error: run.error ? { code: run.error.code, message: run.error.message } : null,
      notices: run.review_notices ?? [],
    };
  }

  async act(run: RunState, command: RunCommand, requestId: string) {
    const result = await this.commands.execute(run.id, command, {
      organizationId: run.organization_id,
      correlationId: requestId,
      causationId: requestId,
    });
    await this.waiter.waitFor(run.id, result.revision);
    return this.view(result.state);
  }
}
