import { Inject, Injectable } from '@nestjs/common';
import { quotaRefusals } from '@app/metrics';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { BLOB_KEYS, BLOB_STORE, type BlobStore } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { InputSource, RunCreated } from '@app/contracts';
import { fileExtension, hasHiddenControls, HIDDEN_CONTROLS_PROBLEM, type RunState } from '@app/domain';
import { ProjectionWaiter } from '@app/read-model';
import { RUN_READ_MODEL, type RunReadModel } from '@app/read-model';
import { DIRECTORY, type Directory, type SchemaRecord } from '@app/directory';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApplyRunCommand, LoadRunQuery } from '@app/run-commands';
import { ApiError } from '../http/api-error';
import type { Caller } from '../http/auth.guard';
import { addError, callbackUrlProblem, type FieldErrors } from '../http/validate-body';
import {
  CreateFileRunDto,
  CreateRawRunDto,
  FILE_RUN_SCALARS,
  IMAGE_EXTENSIONS,
  RAW_RUN_SCALARS,
  type RunOptionsDto,
  STRUCTURED_EXTENSIONS,
  type CreatedFileRunDto,
  type CreatedRawRunDto,
} from './transformation.dto';
import { IdempotencyKeys, type IdempotentAnswer, idempotencyRequestHash } from './idempotency';
import { RunPresenter } from './run-presenter';
import type { RunListQuery } from './run-list';
import { paginate } from '../http/pagination';
import { validateRunBody } from './run-body';
import { quotaExceededMessage } from './quota-message';
import { runLocale } from './run-locale';

const CALLBACK_FIELDS = ['notify_url', 'success_callback', 'cancel_callback'] as const;

/** What a file run's name may end in, as its 422 lists them. */
const ACCEPTED_EXTENSIONS = [...STRUCTURED_EXTENSIONS, ...IMAGE_EXTENSIONS].join(', ');

/**
 * When a file run's upload instructions expire: the TTL from now, rounded up to a whole second. Signed
 * URLs carry whole seconds (ours and S3's X-Amz-Date), so a whole-second `upload.expires_at` is
 * exactly when the URL stops working; with milliseconds the URL stopped up to a second before it.
 */
const uploadExpiry = (now: Date, ttlSeconds: number): Date => new Date((Math.ceil(now.getTime() / 1000) + ttlSeconds) * 1000);

/** Creating and reading runs for the public API. */
@Injectable()
export class TransformationsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DIRECTORY) private readonly directory: Directory,
    @Inject(RUN_READ_MODEL) private readonly readModel: RunReadModel,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly waiter: ProjectionWaiter,
    private readonly presenter: RunPresenter,
  ) {
    this.idempotency = new IdempotencyKeys(directory);
  }

  private readonly idempotency: IdempotencyKeys;

  /** POST /v1/transformations/file; with an Idempotency-Key, at most one run per key (idempotency.ts). */
  createFileRun(caller: Caller, body: unknown, requestId: string, idempotencyKey?: string): Promise<IdempotentAnswer<CreatedFileRunDto>> {
    return this.once(caller, 'POST /v1/transformations/file', body, idempotencyKey, (runId, resumed) =>
      this.createFile(caller, body, requestId, runId, resumed),
    );
  }

  /** POST /v1/transformations/raw; with an Idempotency-Key, at most one run per key. */
  createRawRun(caller: Caller, body: unknown, requestId: string, idempotencyKey?: string): Promise<IdempotentAnswer<CreatedRawRunDto>> {
    return this.once(caller, 'POST /v1/transformations/raw', body, idempotencyKey, (runId, resumed) =>
      this.createRaw(caller, body, requestId, runId, resumed),
    );
  }

  private async once<T>(
    caller: Caller,
    operation: string,
    body: unknown,
    key: string | undefined,
    create: (runId: string, resumed: boolean) => Promise<T>,
  ): Promise<IdempotentAnswer<T>> {
    if (key === undefined) return { body: await create(randomUUID(), false), replayed: false };
    return this.idempotency.run(caller.organizationId, key, idempotencyRequestHash(operation, body), create);
  }

  /**
   * The run an earlier attempt with the same Idempotency-Key created under `runId`, if it
   * got that far (its answer was lost: the process stopped, or a later step failed).
   */
  private async earlierRun(caller: Caller, runId: string, resumed: boolean): Promise<RunState | null> {
    if (!resumed) return null;
    const run = (await this.readModel.getRun(runId)) ?? (await this.queryBus.execute(new LoadRunQuery(runId))).state;
    return run && run.organization_id === caller.organizationId ? run : null;
  }

  private async createFile(caller: Caller, body: unknown, requestId: string, runId: string, resumed: boolean): Promise<CreatedFileRunDto> {
    const earlier = await this.earlierRun(caller, runId, resumed);
    if (earlier) return this.fileCreated(earlier);
    const { value: dto, errors } = await validateRunBody(CreateFileRunDto, FILE_RUN_SCALARS, body);
    // A body that is not an object has no fields to judge: its one problem is said alone.
    if (errors.body) throw ApiError.validation(errors);
    const ext = typeof dto.filename === 'string' ? fileExtension(dto.filename) : '';
    const isImage = (IMAGE_EXTENSIONS as readonly string[]).includes(ext);
    if (!errors.filename && !isImage && !(STRUCTURED_EXTENSIONS as readonly string[]).includes(ext)) {
      addError(errors, 'filename', `The filename must end in one of: ${ACCEPTED_EXTENSIONS}.`);
    }
    // The spec: input_has_header is "ignored for image filenames", whatever it holds.
    if (isImage) delete errors.input_has_header;
    if (isImage && !errors.provider_id && !dto.provider_id)
      addError(errors, 'provider_id', 'The provider id field is required when the file is an image.');
    const schema = await this.checkOptions(caller, dto, errors);
    if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
    if (!dto.dry_run) await this.requireQuotaLeft(caller);

    const now = new Date();
    const inputSource: InputSource = isImage ? 'image' : 'upload';
    const state = await this.create(
      caller,
      requestId,
      this.runCreated(caller, dto, schema!, runId, inputSource, now, {
        filename: dto.filename,
        input_has_header: isImage ? null : (dto.input_has_header ?? null),
        upload_expires_at: uploadExpiry(now, this.config.uploadTtlSeconds).toISOString(),
      }),
    );
    return this.fileCreated(state, now);
  }

  /** The 201 body of a file run: its state, review link and upload instructions. */
  private async fileCreated(state: RunState, now = new Date()): Promise<CreatedFileRunDto> {
    const resource = await this.presenter.present(state, now);
    return {
      id: state.id,
      status: state.status,
      stage: state.stage,
      input_source: state.input_source,
      schema_id: state.schema.id,
      review_url: resource.review_url!,
      upload: resource.upload ?? (await this.presenter.upload(state)),
    };
  }

  private async createRaw(caller: Caller, body: unknown, requestId: string, runId: string, resumed: boolean): Promise<CreatedRawRunDto> {
    const earlier = await this.earlierRun(caller, runId, resumed);
    if (earlier) return this.rawCreated(earlier);
    const { value: dto, errors } = await validateRunBody(CreateRawRunDto, RAW_RUN_SCALARS, body);
    if (errors.body) throw ApiError.validation(errors);
    const schema = await this.checkOptions(caller, dto, errors);
    if (Object.keys(errors).length > 0) throw ApiError.validation(errors);

    const now = new Date();
    const sourceKey = BLOB_KEYS.source(runId);
    // The content is stored before the run exists, so a created run always has its source.
    await this.blobs.put(sourceKey, Readable.from([Buffer.from(dto.content, 'utf8')]), { contentType: 'text/plain; charset=utf-8' });
    const state = await this.create(
      caller,
      requestId,
      this.runCreated(caller, dto, schema!, runId, 'raw', now, {
        filename: null,
        input_has_header: null,
        upload_expires_at: null,
      }),
    );
    return this.rawCreated(state, now);
  }

  /** The 201 body of a raw run. */
  private async rawCreated(state: RunState, now = new Date()): Promise<CreatedRawRunDto> {
    return {
      id: state.id,
      status: state.status,
      stage: state.stage,
      input_source: 'raw',
      schema_id: state.schema.id,
      review_url: (await this.presenter.present(state, now)).review_url!,
    };
  }

  /**
   * A non-dry file run needs a review-preparation unit; the unit itself is taken when
   * preparation starts (after the upload), so a run that is never uploaded costs nothing.
   */
  private async requireQuotaLeft(caller: Caller): Promise<void> {
    const org = await this.directory.getOrganization(caller.organizationId);
    if (org && org.review_preparation_quota !== null && org.review_preparations_used >= org.review_preparation_quota) {
      quotaRefusals.inc({ quota: 'review_preparation' });
      throw new ApiError(
        429,
        'review_preparation_quota_exceeded',
        'quota_exceeded',
        quotaExceededMessage(org.review_preparation_quota, org.review_preparations_used),
      );
    }
  }

  /**
   * The organization's runs, newest first, each the run resource, in the pagination envelope
   * (run-list.ts reads the query). `withFacts` (the console) adds what a list shows beside each
   * run that the resource does not hold: when it was created and its file name.
   */
  async list(organizationId: string, { filter, page, carried }: RunListQuery, path: string, withFacts = false) {
    const { items, total } = await this.readModel.listRuns(organizationId, filter, page.offset, page.perPage);
    const now = new Date();
    const data = await Promise.all(
      items.map(async (run) => {
        const resource = await this.presenter.present(run, now);
        return withFacts ? { ...resource, created_at: run.created_at, filename: run.filename } : resource;
      }),
    );
    return paginate(data, total, page, path, carried);
  }

  /**
   * The console's usage figures: the quota, runs per UTC day over the last `days` days by outcome
   * (every day present, oldest first), and the rows those runs processed.
   */
  async usage(organizationId: string, days = 30, now = new Date()) {
    const org = await this.directory.getOrganization(organizationId);
    if (!org) throw ApiError.notFound('organization');
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
    const usage = await this.readModel.runUsage(organizationId, first.toISOString());
    const perDay = Array.from({ length: days }, (_, i) => ({
      date: new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10),
      finished: 0,
      failed: 0,
      canceled: 0,
      other: 0,
    }));
    const byDate = new Map(perDay.map((d) => [d.date, d]));
    for (const { date, outcome, count } of usage.days) {
      const day = byDate.get(date);
      if (day) day[outcome] += count;
    }
    const limit = org.review_preparation_quota;
    return {
      quota: { limit, used: org.review_preparations_used, left: limit === null ? null : Math.max(0, limit - org.review_preparations_used) },
      days: perDay,
      rows_processed: usage.rows_processed,
    };
  }

  /** The run resource; `withFacts` (the console) adds when it was created and its file name, as the console's list does. */
  async show(caller: Caller, runId: string, withFacts = false) {
    const run = await this.findRun(caller, runId);
    const resource = await this.presenter.present(run);
    return withFacts ? { ...resource, created_at: run.created_at, filename: run.filename } : resource;
  }

  /** The run of the caller's organization, from the read model or, if not projected yet, from its stream; for display only (frozen). */
  private async findRun(caller: Caller, runId: string): Promise<Readonly<RunState>> {
    const run = (await this.readModel.getRunView(runId)) ?? (await this.queryBus.execute(new LoadRunQuery(runId))).state;
    if (!run || run.organization_id !== caller.organizationId) throw ApiError.notFound('transformation run');
    return run;
  }

  private async create(caller: Caller, requestId: string, data: RunCreated): Promise<RunState> {
    const result = await this.commandBus.execute(
      new ApplyRunCommand(
        data.run_id,
        { type: 'CreateRun', data },
        {
          organizationId: caller.organizationId,
          correlationId: requestId,
          causationId: requestId,
        },
      ),
    );
    // Read-your-writes: the 201 is sent once a GET of the run would find it.
    await this.waiter.waitFor(data.run_id, result.revision);
    return result.state;
  }

  private runCreated(
    caller: Caller,
    dto: RunOptionsDto & { provider_id?: string | null },
    schema: SchemaRecord,
    runId: string,
    inputSource: InputSource,
    now: Date,
    extra: Pick<RunCreated, 'filename' | 'input_has_header' | 'upload_expires_at'>,
  ): RunCreated {
    return {
      run_id: runId,
      organization_id: caller.organizationId,
      input_source: inputSource,
      schema: {
        id: schema.id,
        name: schema.name,
        fields: schema.fields,
        // Only when the schema names one: the events of runs without a hook stay as they were.
        ...(schema.validation_url ? { validation_url: schema.validation_url } : {}),
        ...(schema.unique_with?.length ? { unique_with: schema.unique_with } : {}),
      },
      provider_id: dto.provider_id ?? null,
      dry_run: dto.dry_run ?? false,
      output_format: dto.output_format ?? 'json',
      notify_url: dto.notify_url ?? null,
      success_callback: dto.success_callback ?? null,
      cancel_callback: dto.cancel_callback ?? null,
      locale: runLocale(dto.locale),
      appearance: dto.appearance ?? null,
      metadata: dto.metadata ?? null,
      column_labels: dto.column_labels ?? null,
      source_key: BLOB_KEYS.source(runId),
      created_at: now.toISOString(),
      ...extra,
    };
  }

  /** Checks that need the directory or cross several fields; adds to `errors`; returns the schema. */
  private async checkOptions(
    caller: Caller,
    dto: RunOptionsDto & { provider_id?: string | null },
    errors: FieldErrors,
  ): Promise<SchemaRecord | null> {
    for (const field of CALLBACK_FIELDS) {
      const problem = callbackUrlProblem(dto[field], this.config.production, this.config.webhooks.allowedAddresses);
      if (problem) addError(errors, field, `The ${field.replace(/_/g, ' ')} field ${problem}`);
    }
    const schema = !errors.schema_id && dto.schema_id ? await this.directory.getSchema(caller.organizationId, dto.schema_id) : null;
    if (!errors.schema_id && dto.schema_id && !schema) addError(errors, 'schema_id', 'The selected schema id is invalid.');
    if (!errors.provider_id && dto.provider_id && !(await this.directory.getProvider(caller.organizationId, dto.provider_id))) {
      addError(errors, 'provider_id', 'The selected provider id is invalid.');
    }
    if (dto.column_labels && !errors.column_labels) {
      // The labels' own rules are checked whatever the schema_id (all problems at once); whether each names a field, only with a schema.
      for (const [key, label] of Object.entries(dto.column_labels)) {
        // Own members only: `toString` or `constructor` is a field only when the schema defines one by that name.
        if (schema && !Object.hasOwn(schema.fields, key))
          addError(errors, `column_labels.${key}`, `"${key}" is not a field of the selected schema.`);
        else if (label !== null && typeof label !== 'string')
          addError(errors, `column_labels.${key}`, 'A column label must be a string or null.');
        // Shown to reviewers in place of the schema's label, so held to the same rule (docs/decisions.md, the console).
        else if (typeof label === 'string' && hasHiddenControls(label))
          addError(errors, `column_labels.${key}`, `A column label ${HIDDEN_CONTROLS_PROBLEM}.`);
      }
    }
    return schema;
  }
}
