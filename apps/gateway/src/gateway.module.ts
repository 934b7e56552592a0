import { Module } from '@nestjs/common';
import { OperationsController } from './operations/operations.controller';
import { RunCountsMetric } from './operations/run-counts.metric';
import { APP_FILTER } from '@nestjs/core';
import { AdminModule } from './admin/admin.module';
import { ConsoleModule } from './console/console.module';
import { CatalogController } from './catalog/catalog.controller';
import { ErrorEnvelopeFilter } from './http/error-envelope.filter';
import { ApiKeyGuard } from './http/auth.guard';
import { ReviewAssetsController, ReviewController } from './review/review.controller';
import { ReviewPreviewService } from './review/review-preview.service';
import { ReviewSourceChoiceService } from './review/review-source-choice.service';
import { ReviewWeb } from './review/review-web';
import { ReviewService } from './review/review.service';
import { CustomerChecks } from './review/validation-hook/customer-checks.service';
import { HookAnswers } from './review/validation-hook/hook-answers.store';
import { ValidationHookClient } from './review/validation-hook/validation-hook.client';
import { TransformationsController } from './transformations/transformations.controller';
import { RunsModule } from './transformations/runs.module';
import { DeliveriesController } from './transformations/deliveries.controller';
import { DeliveriesModule } from './transformations/deliveries.module';

/** Public API (/v1), admin API (/admin/v1), hosted review (/review) and embedded file URLs (/files). */
@Module({
  imports: [AdminModule, RunsModule, DeliveriesModule, ConsoleModule],
  controllers: [
    TransformationsController,
    DeliveriesController,
    CatalogController,
    ReviewController,
    ReviewAssetsController,
    OperationsController,
  ],
  providers: [
    { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
    ApiKeyGuard,
    ReviewService,
    ReviewPreviewService,
    ReviewSourceChoiceService,
    ValidationHookClient,
    CustomerChecks,
    HookAnswers,
    ReviewWeb,
    RunCountsMetric,
  ],
})
export class GatewayModule {}
