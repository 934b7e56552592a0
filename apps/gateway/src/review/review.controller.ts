import { Body, Controller, Get, Headers, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { MappingRule, ProblemRowsChoice } from '@app/contracts';
import { CELL_PROBLEMS, ROW_FIX_FIELD, ROW_FIX_KINDS } from '@app/domain';
import { ApiError } from '../http/api-error';
import { REVIEW_BODY_LIMITS, withinJsonShape } from '../http/json-shape-limits';
import { objectBodyOrNone } from '../http/validate-body';
import { sendWebAsset } from '../web-shared/web-assets';
import { REVIEW_PAGE_HEADERS, invalidLinkPage, reviewPage } from './review.page';
import type { ProblemRowsQuery } from '@app/run-source';
import { PROBLEM_ROWS_PER_PAGE, ReviewPreviewService } from './review-preview.service';
import { ReviewSourceChoiceService } from './review-source-choice.service';
import { ReviewService } from './review.service';
import { CustomerChecks } from './validation-hook/customer-checks.service';
import { ReviewWeb, localeFromAcceptLanguage } from './review-web';

interface ReviewBody {
  mapping_rule?: unknown;
  expected_mapping_version?: unknown;
  wait?: unknown;
  field?: unknown;
  kind?: unknown;
  page?: unknown;
  per_page?: unknown;
  fix?: unknown;
  rows_with_problems?: unknown;
  expected_fixes?: unknown;
  input_has_header?: unknown;
  rows_above_header?: unknown;
  sheet?: unknown;
  encoding?: unknown;
  offset?: unknown;
}

/** Whether a fix asked for is of whole rows (leave_out, put_back, and of the hidden rows), which names no field. */
const kindOf = (fix: unknown): unknown => (fix && typeof fix === 'object' ? (fix as { kind?: unknown }).kind : undefined);
const isRowFixRequest = (fix: unknown): boolean => ROW_FIX_KINDS.includes(kindOf(fix) as string);
/** The kinds of a fix of one field's values: without a field, any other kind is judged as a row fix would be. */
const FIELD_FIX_KINDS: readonly unknown[] = ['cell', 'replace', 'normalise', 'picklist'];

/**
 * A review call's body: an object or none, within the JSON body limits every API of the service applies (here
 * REVIEW_BODY_LIMITS). Read only once the link's signature was checked, so a stranger gets 403 first, as a
 * guard-first route answers 401 first.
 */
const reviewBody = (raw: unknown): ReviewBody => objectBodyOrNone<ReviewBody>(withinJsonShape(raw, REVIEW_BODY_LIMITS));

function expectedVersion(body: ReviewBody): number | undefined {
  const v = body.expected_mapping_version;
  if (v === undefined || v === null) return undefined;
  if (!Number.isInteger(v) || (v as number) < 0) {
    throw ApiError.validation({ expected_mapping_version: ['The expected mapping version must be a non-negative integer.'] });
  }
  return v as number;
}

/**
 * The fixes the page saw (its state's `fixes_key`), or undefined when the body names none. Any other type is refused:
 * read as absent, it would approve (or undo) without the check the page asked for.
 */
function expectedFixes(body: ReviewBody): string | undefined {
  const expected = body.expected_fixes;
  if (expected === undefined || expected === null) return undefined;
  if (typeof expected !== 'string')
    throw ApiError.validation({ expected_fixes: ['expected_fixes must be the fixes_key the page was given.'] });
  return expected;
}

/** Where a preview starts: the data rows it skips (0, the file's first rows, unless the body says). */
function previewOffset(body: ReviewBody): number {
  const offset = body.offset ?? 0;
  if (!Number.isInteger(offset) || (offset as number) < 0 || (offset as number) > 1e9)
    throw ApiError.validation({ offset: ['The offset must be a non-negative integer (the data rows to skip).'] });
  return offset as number;
}

/** Whether a count call waits for the whole file: yes unless the body says `"wait": false`. */
function waitsForCount(body: ReviewBody): boolean {
  const wait = body.wait ?? true;
  if (typeof wait !== 'boolean') throw ApiError.validation({ wait: ['wait must be true or false.'] });
  return wait;
}

/** The approval's choice for rows that still have a problem; `deliver` when the body does not say. */
function problemRowsChoice(body: ReviewBody): ProblemRowsChoice {
  const choice = body.rows_with_problems ?? 'deliver';
  if (choice !== 'deliver' && choice !== 'exclude')
    throw ApiError.validation({ rows_with_problems: ['rows_with_problems must be "deliver" or "exclude".'] });
  return choice;
}

/** Which rows with problems the page asks for: a field and a kind of problem (or any), and a page. */
function problemRowsQuery(body: ReviewBody): ProblemRowsQuery {
  const errors: Record<string, string[]> = {};
  const field = body.field ?? null;
  if (field !== null && typeof field !== 'string') errors.field = ['The field must be a field name or null.'];
  const kind = body.kind ?? null;
  if (kind !== null && !(CELL_PROBLEMS as readonly unknown[]).includes(kind))
    errors.kind = [`The kind must be one of ${CELL_PROBLEMS.map((k) => `"${k}"`).join(', ')}, or null.`];
  const page = body.page ?? 1;
  if (!Number.isInteger(page) || (page as number) < 1) errors.page = ['The page must be a positive integer.'];
  const perPage = body.per_page ?? PROBLEM_ROWS_PER_PAGE;
  if (!Number.isInteger(perPage) || (perPage as number) < 1 || (perPage as number) > 100)
    errors.per_page = ['per_page must be an integer from 1 to 100.'];
  if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
  return {
    field: field as string | null,
    kind: kind as ProblemRowsQuery['kind'],
    offset: ((page as number) - 1) * (perPage as number),
    limit: perPage as number,
  };
}

/** The hosted review page and the JSON calls it makes, all under the run's signed link. */
@ApiExcludeController()
@Controller('review/:runId')
export class ReviewController {
  constructor(
    private readonly review: ReviewService,
    private readonly previews: ReviewPreviewService,
    private readonly sourceChoice: ReviewSourceChoiceService,
    private readonly web: ReviewWeb,
    private readonly customerChecks: CustomerChecks,
  ) {}

  @Get()
  async page(
    @Param('runId') runId: string,
    @Query('signature') signature: string,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    void reply.headers(REVIEW_PAGE_HEADERS);
    try {
      const run = await this.review.authorize(runId, signature);
      return reply.send(reviewPage(this.web, run));
    } catch {
      // The link names no run we may trust, so its language comes from the browser.
      return reply.status(403).send(invalidLinkPage(this.web, localeFromAcceptLanguage(acceptLanguage)));
    }
  }

  /** After `review_expires_at`: the expired state alone, with none of the run's data (ReviewService.view). */
  @Get('state')
  async state(@Param('runId') runId: string, @Query('signature') signature: string) {
    return this.review.view(await this.review.authorize(runId, signature));
  }

  /** The file's first rows, each as its values, for the reviewer's choice of the row with the column names. */
  @Get('top-rows')
  async topRows(@Param('runId') runId: string, @Query('signature') signature: string) {
    return this.sourceChoice.topRows(await this.review.authorizeOpen(runId, signature));
  }

  @Put('mapping')
  async editMapping(
    @Param('runId') runId: string,
    @Query('signature') signature: string,
    @Body() raw: unknown,
    @Req() req: FastifyRequest,
  ) {
    const run = await this.review.authorizeOpen(runId, signature);
    const body = reviewBody(raw);
    if (body.mapping_rule === undefined) throw ApiError.validation({ mapping_rule: ['The mapping rule field is required.'] });
    return this.review.act(
      run,
      {
        type: 'EditMapping',
        mapping_rule: body.mapping_rule as MappingRule,
        expected_mapping_version: expectedVersion(body),
        at: new Date().toISOString(),
      },
      String(req.id),
    );
  }

  @Post('approve')
  @HttpCode(200)
  async approve(@Param('runId') runId: string, @Query('signature') signature: string, @Body() raw: unknown, @Req() req: FastifyRequest) {
    const run = await this.review.authorizeOpen(runId, signature);
    const body = reviewBody(raw);
    // Approve exactly the mapping the page shows; without one, the current mapping, as the stream has it when
    // the approval is decided (the projection read above may not show another reviewer's latest edit yet).
    return this.review.act(
      run,
      {
        type: 'ApproveReview',
        mapping_rule: (body.mapping_rule ?? null) as MappingRule | null,
        expected_mapping_version: expectedVersion(body),
        rows_with_problems: problemRowsChoice(body),
        expected_fixes: expectedFixes(body),
        at: new Date().toISOString(),
      },
      String(req.id),
    );
  }

  /**
   * A fix of one field's values (one cell, find and replace, or a normaliser), or without a field of a whole row (left
   * out, put back), recorded as an event of the run. A cell edit's cell is read first: one whose `before` no longer
   * reads so is refused (409 fixes_conflict). A row fix may carry the page's `expected_mapping_version`: a header row or
   * sheet chosen since numbers the rows otherwise (409 mapping_conflict).
   */
  @Post('fixes')
  @HttpCode(200)
  async fixValues(@Param('runId') runId: string, @Query('signature') signature: string, @Body() raw: unknown, @Req() req: FastifyRequest) {
    const run = await this.review.authorizeOpen(runId, signature);
    const body = reviewBody(raw);
    // No field and a kind no fix has ("Leave_Out"): refused as a row fix is, naming the kinds a fix without a field may
    // have, rather than asking for a field it does not need.
    const ofRow = isRowFixRequest(body.fix) || (body.field === undefined && !FIELD_FIX_KINDS.includes(kindOf(body.fix)));
    if (ofRow ? body.field !== undefined && body.field !== ROW_FIX_FIELD : typeof body.field !== 'string')
      throw ApiError.validation({
        field: [ofRow ? 'A fix of a whole row names no field.' : 'The field must be the name of a schema field.'],
      });
    const field = ofRow ? ROW_FIX_FIELD : (body.field as string);
    const cellRead = ofRow ? null : await this.previews.cellRead(run, field, body.fix);
    const expected = ofRow ? expectedVersion(body) : undefined;
    return this.review.act(
      run,
      {
        type: 'FixValues',
        fix_id: randomUUID(),
        field,
        fix: body.fix,
        at: new Date().toISOString(),
        ...(cellRead ? { cell_read: cellRead } : {}),
        ...(expected !== undefined ? { expected_mapping_version: expected } : {}),
      },
      String(req.id),
    );
  }

  /**
   * The reviewer says whether the file has a row of column names, and which (`rows_above_header`: the rows above it
   * left out, a title); the headers and the suggested mapping follow.
   */
  @Post('header')
  @HttpCode(200)
  async chooseHeader(
    @Param('runId') runId: string,
    @Query('signature') signature: string,
    @Body() raw: unknown,
    @Req() req: FastifyRequest,
  ) {
    const run = await this.review.authorizeOpen(runId, signature);
    return this.sourceChoice.chooseHeaderRow(run, reviewBody(raw), String(req.id));
  }

  /**
   * The reviewer reads another sheet of the workbook: its headers, rows and counts follow, the
   * mapping is kept where the sheet has the same columns; recorded as SheetChosen.
   */
  @Post('sheet')
  @HttpCode(200)
  async chooseSheet(
    @Param('runId') runId: string,
    @Query('signature') signature: string,
    @Body() raw: unknown,
    @Req() req: FastifyRequest,
  ) {
    const run = await this.review.authorizeOpen(runId, signature);
    return this.sourceChoice.chooseSheet(run, reviewBody(raw).sheet, String(req.id));
  }

  /**
   * The reviewer reads the uploaded text file in another encoding (the detected one read its letters
   * wrong): its headers, rows and counts follow, each field keeps the column in its place; recorded as EncodingChosen.
   */
  @Post('encoding')
  @HttpCode(200)
  async chooseEncoding(
    @Param('runId') runId: string,
    @Query('signature') signature: string,
    @Body() raw: unknown,
    @Req() req: FastifyRequest,
  ) {
    const run = await this.review.authorizeOpen(runId, signature);
    return this.sourceChoice.chooseEncoding(run, reviewBody(raw).encoding, String(req.id));
  }

  /** Takes back the latest fix still in force. */
  @Post('fixes/undo')
  @HttpCode(200)
  async undoFix(@Param('runId') runId: string, @Query('signature') signature: string, @Body() raw: unknown, @Req() req: FastifyRequest) {
    const run = await this.review.authorizeOpen(runId, signature);
    const expected = expectedFixes(reviewBody(raw));
    return this.review.act(
      run,
      { type: 'UndoValueFix', ...(expected !== undefined ? { expected_fixes: expected } : {}), at: new Date().toISOString() },
      String(req.id),
    );
  }

  @Post('cancel')
  @HttpCode(200)
  async cancel(@Param('runId') runId: string, @Query('signature') signature: string, @Body() raw: unknown, @Req() req: FastifyRequest) {
    const run = await this.review.authorizeOpen(runId, signature);
    // Nothing is read from the body, but a body that is not an object is refused as on every other review call.
    reviewBody(raw);
    return this.review.act(run, { type: 'CancelReview', at: new Date().toISOString() }, String(req.id));
  }

  /** The first rows under a mapping (the saved one when the body names none), or those from `offset`; nothing is saved. */
  @Post('preview')
  @HttpCode(200)
  async preview(@Param('runId') runId: string, @Query('signature') signature: string, @Body() raw: unknown) {
    const run = await this.review.authorizeOpen(runId, signature);
    const body = reviewBody(raw);
    const offset = previewOffset(body);
    // The customer's checks start here (the page's first call for a mapping) and join the rows once answered.
    return this.customerChecks.withPreview(run, body.mapping_rule, await this.previews.preview(run, body.mapping_rule, offset), offset + 1);
  }

  /**
   * How many rows have problems across the whole file under a mapping, per field and kind;
   * may take a while on large files. `"wait": false` answers at once with the progress.
   */
  @Post('problems')
  @HttpCode(200)
  async problems(@Param('runId') runId: string, @Query('signature') signature: string, @Body() raw: unknown) {
    const run = await this.review.authorizeOpen(runId, signature);
    const body = reviewBody(raw);
    const wait = waitsForCount(body);
    return this.customerChecks.withCount(run, body.mapping_rule, await this.previews.countProblems(run, body.mapping_rule, wait), wait);
  }

  /** A picklist field's values over the whole file, with their current mapping and a suggestion each. */
  @Post('picklist-values')
  @HttpCode(200)
  async picklistValues(@Param('runId') runId: string, @Query('signature') signature: string, @Body() raw: unknown) {
    const run = await this.review.authorizeOpen(runId, signature);
    const body = reviewBody(raw);
    return this.previews.picklistValues(run, body.mapping_rule, body.field);
  }

  /** One page of the rows with problems over the whole file, filtered by field and kind. */
  @Post('problem-rows')
  @HttpCode(200)
  async problemRows(@Param('runId') runId: string, @Query('signature') signature: string, @Body() raw: unknown) {
    const run = await this.review.authorizeOpen(runId, signature);
    const body = reviewBody(raw);
    const query = problemRowsQuery(body);
    return this.customerChecks.problemRows(run, body.mapping_rule, query, (q) =>
      this.previews.problemRows(run, body.mapping_rule, q as ProblemRowsQuery),
    );
  }
}

/** The page's script and style, immutable under their content hash. */
@ApiExcludeController()
@Controller('review-assets')
export class ReviewAssetsController {
  constructor(private readonly web: ReviewWeb) {}

  @Get(':name')
  asset(@Param('name') name: string, @Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply) {
    const asset = this.web.asset(name);
    if (!asset) throw new ApiError(404, 'not_found', 'not_found', 'The requested resource was not found.');
    return sendWebAsset(reply, asset, ifNoneMatch);
  }
}
