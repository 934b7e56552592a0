import { MAX_VALUE_FIXES } from '@app/domain';
import { MAX_FIXES } from './page/limits';

/** The review page's copies of the server's limits (page/limits.ts): the page is bundled without server code. */
describe('review page limits', () => {
  it('names the same fix budget as the decider enforces', () => {
    expect(MAX_FIXES).toBe(MAX_VALUE_FIXES);
  });
});
