/**
 * A webhook secret (`whsec_` and its base64, as written, percent-encoded or JSON-escaped) in a
 * receiver's answer. A receiver that echoes the request it was sent (a debugging endpoint, a
 * request bin) echoes the `X-Service-Webhook-Secret` header, and the answer's excerpt is shown in
 * the delivery log to every member and to API-key holders: the secret would then reach people
 * the console never shows it to (a viewer), and skip the audit of a reveal.
 */
const WEBHOOK_SECRET = /whsec_(?:[A-Za-z0-9+/=_-]|%[0-9A-Fa-f]{2}|\\\/)+/g;

/** `text` with every webhook secret in it replaced by `whsec_[hidden]`. */
export const hideWebhookSecrets = (text: string): string => text.replace(WEBHOOK_SECRET, 'whsec_[hidden]');
