import { hideWebhookSecrets } from './hidden-secrets';

describe('hideWebhookSecrets', () => {
  const secret = 'whsec_w+uJxLujYg3e50xUtOWGKZLhb7qXtqe8';
  it.each([
    ['as written', `{"x-service-webhook-secret":"${secret}"}`, '{"x-service-webhook-secret":"whsec_[hidden]"}'],
    ['percent-encoded', `secret=${encodeURIComponent(secret)}&a=1`, 'secret=whsec_[hidden]&a=1'],
    ['with escaped slashes', 'k: whsec_ab\\/cd/ef== end', 'k: whsec_[hidden] end'],
    ['cut short by the excerpt', `…${secret.slice(0, 12)}`, '…whsec_[hidden]'],
    ['twice', `${secret} ${secret}`, 'whsec_[hidden] whsec_[hidden]'],
  ])('hides a secret %s', (_how, text, hidden) => expect(hideWebhookSecrets(text)).toBe(hidden));

  it('leaves an answer without one as it is', () => {
    const text = '{"ok":true,"note":"whsec is our prefix","sig":"v1,abc+/="}';
    expect(hideWebhookSecrets(text)).toBe(text);
  });
});
