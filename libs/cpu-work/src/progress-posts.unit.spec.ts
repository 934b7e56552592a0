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
