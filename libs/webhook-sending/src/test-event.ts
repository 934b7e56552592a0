import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DIRECTORY, type Directory } from '@app/directory';
import { TEST_WEBHOOK_EVENT, WebhookSender } from './webhook-sender';

/** What a test delivery answered (the console's "send a test event"). */
export interface TestEventResult {
  delivered: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** The body of a test delivery: clearly marked, no run behind it (docs/webhooks.md, "Test events"). */
export function testEventPayload(id: string, organizationId: string, at: Date) {
  return {
    event: TEST_WEBHOOK_EVENT,
    id,
    test: true,
    organization_id: organizationId,
    sent_at: at.toISOString(),
    message: 'A test event from the transformation service. No run is behind it: acknowledge it with a 2xx and otherwise ignore it.',
  };
}

/**
 * Sends one test event to a URL with an organization's current secret: the same headers
 * and Standard Webhooks signature as a real delivery, through the same address guard and
 * timeout; nothing is recorded and nothing is retried.
 */
@Injectable()
export class WebhookTestEvents {
  constructor(
    private readonly sender: WebhookSender,
    @Inject(DIRECTORY) private readonly directory: Directory,
  ) {}

  async send(organizationId: string, url: string): Promise<TestEventResult> {
    const org = await this.directory.getOrganization(organizationId);
    if (!org) return { delivered: false, status_code: null, error: 'the organization does not exist', duration_ms: 0 };
    const id = randomUUID();
    const body = JSON.stringify(testEventPayload(id, organizationId, new Date()));
    const result = await this.sender.send(url, { deliveryId: id, event: TEST_WEBHOOK_EVENT, runId: id, secret: org.webhook_secret, body });
    return { delivered: result.delivered, status_code: result.statusCode, error: result.error, duration_ms: result.durationMs };
  }
}
