import { PROGRESS_EVERY_MS, progressPoster } from './progress-posts';

describe('progressPoster', () => {
  it('posts the first figure at once, then at most one every PROGRESS_EVERY_MS, and flushes the last one held back', () => {
    const posted: number[] = [];
    let clock = 1_000;
    const rows = progressPoster({ postMessage: (n) => void posted.push(n) }, () => clock);
    rows.post(500);
    for (let n = 1_000; n <= 5_000; n += 500) {
      clock += PROGRESS_EVERY_MS / 4;
      rows.post(n);
    }
    // 500 at once; then 2,500 (a full interval later) and 4,500.
    expect(posted).toEqual([500, 2_500, 4_500]);
    rows.flush();
    expect(posted).toEqual([500, 2_500, 4_500, 5_000]);
    // Nothing held back: flushing again posts nothing.
    rows.flush();
    expect(posted).toHaveLength(4);
  });

  it('posts nothing on flush when the last figure was posted', () => {
    const posted: number[] = [];
    const rows = progressPoster({ postMessage: (n) => void posted.push(n) }, () => 0);
    rows.post(10);
    rows.flush();
    expect(posted).toEqual([10]);
  });
});

describe('progressPoster, when the task goes quiet', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('posts a figure held back once its interval ends, though no other figure comes', () => {
    const posted: number[] = [];
    const rows = progressPoster({ postMessage: (n) => void posted.push(n) });
    rows.post(500);
    jest.advanceTimersByTime(10);
    rows.post(1_000);
    rows.post(1_500);
    expect(posted).toEqual([500]);
    jest.advanceTimersByTime(PROGRESS_EVERY_MS - 11);
    expect(posted).toEqual([500]);
    jest.advanceTimersByTime(1);
    // The last figure held, once: the store the task waits on may keep it quiet for seconds.
    expect(posted).toEqual([500, 1_500]);
    jest.advanceTimersByTime(10 * PROGRESS_EVERY_MS);
    expect(posted).toEqual([500, 1_500]);
    // The interval starts again from that post.
    rows.post(2_000);
    expect(posted).toEqual([500, 1_500, 2_000]);
  });

  it('stop drops what is held back: nothing is posted on a port about to close', () => {
    const posted: number[] = [];
    const rows = progressPoster({ postMessage: (n) => void posted.push(n) });
    rows.post(1);
    rows.post(2);
    rows.stop();
    jest.advanceTimersByTime(10 * PROGRESS_EVERY_MS);
    expect(posted).toEqual([1]);
  });

  it('a flush posts at once and leaves no later post behind', () => {
    const posted: number[] = [];
    const rows = progressPoster({ postMessage: (n) => void posted.push(n) });
    rows.post(1);
    rows.post(2);
    rows.flush();
    jest.advanceTimersByTime(10 * PROGRESS_EVERY_MS);
    expect(posted).toEqual([1, 2]);
  });
});
