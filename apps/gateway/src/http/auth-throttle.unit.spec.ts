import { ApiError } from './api-error';
import { AuthFailureThrottle, type CheckPlace } from './auth-throttle';

/** A check that ends when told: how a lookup in a remote directory answers later. */
function laterCheck() {
  let end!: (failed: boolean) => void;
  const ended = new Promise<boolean>((resolve) => (end = resolve));
  return { end, ended };
}

/** Waits until nothing more can happen before timers (the throttle's promises have all settled). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('AuthFailureThrottle.place', () => {
  it('checks sent at once get no more looks than the failures left; the rest are refused once those failed', async () => {
    const throttle = new AuthFailureThrottle(3, 60);
    const checks = Array.from({ length: 12 }, () => laterCheck());
    let looked = 0;
    const answers = checks.map(async ({ ended }) => {
      const place = (await throttle.place('10.0.0.1')) as ApiError | CheckPlace;
      if (place instanceof ApiError) return place.status;
      looked++;
      await place.release(await ended);
      return 401;
    });
    await settled();
    // Three places, nine waiting: only three lookups under way.
    expect(looked).toBe(3);
    for (const check of checks) check.end(true);
    const statuses = await Promise.all(answers);
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    expect(looked).toBe(3);
  });

  it('a burst of good checks waits for places and is never refused', async () => {
    const throttle = new AuthFailureThrottle(3, 60);
    let underWay = 0;
    let most = 0;
    const answers = Array.from({ length: 10 }, async () => {
      const place = (await throttle.place('10.0.0.2')) as CheckPlace;
      if (place instanceof ApiError) return place.status;
      most = Math.max(most, ++underWay);
      await settled();
      underWay--;
      await place.release(false);
      return 200;
    });
    expect(await Promise.all(answers)).toEqual(Array(10).fill(200));
    expect(most).toBeLessThanOrEqual(3);
    expect(await throttle.refusal('10.0.0.2')).toBeNull();
  });

  it('places are per address, and a failure left open by another address is not this one', async () => {
    const throttle = new AuthFailureThrottle(1, 60);
    const first = (await throttle.place('10.0.0.3')) as CheckPlace;
    const other = await throttle.place('10.0.0.4');
    expect(other).not.toBeInstanceOf(ApiError);
    let second: unknown = 'waiting';
    void throttle.place('10.0.0.3').then((p) => (second = p));
    await settled();
    expect(second).toBe('waiting');
    await first.release(true);
    await settled();
    expect(second).toBeInstanceOf(ApiError);
    expect((second as ApiError).code).toBe('too_many_failed_attempts');
  });

  it('releasing twice counts once', async () => {
    const throttle = new AuthFailureThrottle(2, 60);
    const place = (await throttle.place('10.0.0.5')) as CheckPlace;
    await place.release(true);
    await place.release(true);
    expect(await throttle.refusal('10.0.0.5')).toBeNull();
    await throttle.recordFailure('10.0.0.5');
    expect(await throttle.refusal('10.0.0.5')).toBeInstanceOf(ApiError);
  });

  it('wakes one waiter per place freed: a long line costs each waiter a few looks, not one per release', async () => {
    const throttle = new AuthFailureThrottle(3, 60);
    const looks = jest.spyOn(throttle, 'refusal');
    const waiters = 300;
    const answers = Array.from({ length: waiters }, async () => {
      const place = (await throttle.place('10.0.0.9')) as CheckPlace;
      await settled();
      await place.release(false);
      return 200;
    });
    expect(await Promise.all(answers)).toEqual(Array(waiters).fill(200));
    // Waking every waiter on every release would look about waiters * waiters / 3 times (30,000).
    expect(looks.mock.calls.length).toBeLessThanOrEqual(3 * waiters);
  });

  it('a key that matched while its checks waited goes ahead without a place', async () => {
    const throttle = new AuthFailureThrottle(3, 60);
    await throttle.recordFailure('10.0.0.10');
    await throttle.recordFailure('10.0.0.10');
    let known = false;
    const first = laterCheck();
    let placesTaken = 0;
    const answers = Array.from({ length: 10 }, async (_, i) => {
      const place = await throttle.place('10.0.0.10', () => !known);
      if (place instanceof ApiError) return place.status;
      if (place === null) return 'no place';
      placesTaken++;
      if (i === 0) {
        await first.ended;
        known = true;
      }
      await place.release(false);
      return 'place';
    });
    await settled();
    first.end(false);
    expect(await Promise.all(answers)).toEqual(['place', ...Array(9).fill('no place')]);
    expect(placesTaken).toBe(1);
  });

  it('a key that matched while it waited goes ahead even once the failures are used up; the guesses beside it are refused', async () => {
    const throttle = new AuthFailureThrottle(2, 60);
    const holders = [(await throttle.place('10.0.0.13')) as CheckPlace, (await throttle.place('10.0.0.13')) as CheckPlace];
    let known = false;
    let matched: unknown = 'waiting';
    let guess: unknown = 'waiting';
    void throttle.place('10.0.0.13', () => !known).then((p) => (matched = p));
    void throttle.place('10.0.0.13').then((p) => (guess = p));
    await settled();
    expect([matched, guess]).toEqual(['waiting', 'waiting']);
    // Its key matched through another request meanwhile, while the two holders failed.
    known = true;
    await Promise.all(holders.map((holder) => holder.release(true)));
    for (let i = 0; i < 4; i++) await settled();
    expect(matched).toBeNull();
    expect(guess).toBeInstanceOf(ApiError);
    expect((guess as ApiError).code).toBe('too_many_failed_attempts');
    // It took nothing from the count: the address stays refused.
    expect(await throttle.refusal('10.0.0.13')).toBeInstanceOf(ApiError);
  });

  it('a refusal reaches every waiter of the address', async () => {
    const throttle = new AuthFailureThrottle(2, 60);
    const holders = [laterCheck(), laterCheck()];
    const answers = Array.from({ length: 50 }, async (_, i) => {
      const place = await throttle.place('10.0.0.11');
      if (place instanceof ApiError) return place.status;
      await place!.release(await holders[i].ended);
      return 401;
    });
    await settled();
    for (const holder of holders) holder.end(true);
    const statuses = await Promise.all(answers);
    expect(statuses.filter((s) => s === 401)).toHaveLength(2);
    expect(statuses.filter((s) => s === 429)).toHaveLength(48);
  });

  it("a waiting check always settles, however the holders' failures fall around its look at the count", async () => {
    for (let gap = 0; gap < 16; gap++) {
      const throttle = new AuthFailureThrottle(2, 60);
      const holders = [(await throttle.place('10.0.0.12')) as CheckPlace, (await throttle.place('10.0.0.12')) as CheckPlace];
      let answer: unknown = 'waiting';
      void throttle.place('10.0.0.12').then((p) => (answer = p));
      await settled();
      const first = holders[0].release(true);
      for (let i = 0; i < gap; i++) await Promise.resolve();
      await Promise.all([first, holders[1].release(true)]);
      for (let i = 0; i < 4; i++) await settled();
      // Both holders failed: the waiter is refused (or, its look taken just before the second failure, takes the place).
      expect({ gap, answer: answer === 'waiting' ? 'still waiting' : 'settled' }).toEqual({ gap, answer: 'settled' });
    }
  });
});
