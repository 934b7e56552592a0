import { Injectable } from '@nestjs/common';
import { effectiveReviewState, isTerminal, type RunState } from '@app/domain';
import type { RunDto, UploadInstructionsDto } from './transformation.dto';
import { RunLinks } from '@app/run-links';

/** The run resource exactly as the spec lists it, from the run's folded state. */
@Injectable()
export class RunPresenter {
  constructor(private readonly links: RunLinks) {}

  async present(run: RunState, now = new Date()): Promise<RunDto> {
    const resource: RunDto = {
      id: run.id,
      status: run.status,
      terminal: isTerminal(run, now),
      stage: run.stage,
      schema_id: run.schema.id,
      provider_id: run.provider_id,
      dry_run: run.dry_run,
      input_source: run.input_source,
      metadata: run.metadata,
      review_url: this.links.reviewUrl(run.id),
      review_state: effectiveReviewState(run, now),
      review_canceled_at: run.review_canceled_at,
      review_approved_at: run.review_approved_at,
      review_expires_at: run.review_expires_at,
      output_format: run.output_format,
      mapping_rule: run.mapping_rule,
      source_headers: run.source_headers,
      input_has_header: run.input_has_header,
      total_rows: run.total_rows,
      processed_rows: run.processed_rows,
      rows_excluded: run.stage === 'final' && run.status === 'completed' ? (run.rows_excluded ?? 0) : null,
      error: run.error,
      notification_status: run.notification_status,
      download_url: null,
      file_retention_until: null,
      started_at: run.started_at,
      completed_at: run.completed_at,
      failed_at: run.failed_at,
    };
    if (run.status === 'awaiting_upload') resource.upload = await this.upload(run);
    if (run.stage === 'final' && run.status === 'completed') {
      resource.download_url = await this.links.download(run, now);
      // The contract: "null when no output file exists". Once the sweeper deleted it, there is none.
      resource.file_retention_until = run.files_purged_at ? null : run.file_retention_until;
    }
    return resource;
  }

  async upload(run: RunState): Promise<UploadInstructionsDto> {
    const p = await this.links.upload(run);
    return { url: p.url, headers: p.headers, method: p.method, expires_at: run.upload_expires_at! };
  }
}
