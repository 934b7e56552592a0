import { callbackTarget } from './page/callback-target';

/** Where the review page sends the reviewer after a decision (page/callback-target.ts; docs/api.md, "The hosted review page"). */
describe('review page callback target', () => {
  const RUN = '0b6f3c1e-6f0a-4d4e-9a51-2f1d8f0f3a11';
  const approved = (success_callback: string | null) =>
    callbackTarget({ phase: 'approved', run_id: RUN, success_callback, cancel_callback: 'https://app.example/canceled' });

  it("keeps the callback's query as written and adds the run's id after it", () => {
    // A customer may sign its callback's query, or read `flag` by its presence: form encoding would rewrite each of these.
    expect(approved('https://app.example/done?x=a%20b&flag&y=~&z=1;2&sig=AbC%2F%3D#top')?.toString()).toBe(
      `https://app.example/done?x=a%20b&flag&y=~&z=1;2&sig=AbC%2F%3D&transformation_id=${RUN}#top`,
    );
    expect(approved('https://app.example/done')?.toString()).toBe(`https://app.example/done?transformation_id=${RUN}`);
    expect(approved('https://app.example/done?')?.toString()).toBe(`https://app.example/done?transformation_id=${RUN}`);
  });

  it("replaces a transformation_id the callback held, so the page reads the run's", () => {
    const target = approved('https://app.example/done?transformation_id=theirs&a=1&transformation%5Fid=x&transformation_idx=2');
    expect(target?.toString()).toBe(`https://app.example/done?a=1&transformation_idx=2&transformation_id=${RUN}`);
    expect(target?.searchParams.getAll('transformation_id')).toEqual([RUN]);
  });

  it('goes to the callback of the decision made, http or https only', () => {
    expect(
      callbackTarget({ phase: 'canceled', run_id: RUN, success_callback: null, cancel_callback: 'http://app.example/c' })?.toString(),
    ).toBe(`http://app.example/c?transformation_id=${RUN}`);
    expect(callbackTarget({ phase: 'active', run_id: RUN, success_callback: 'https://a.example/', cancel_callback: null })).toBeNull();
    expect(approved('javascript:alert(1)')).toBeNull();
    expect(approved(null)).toBeNull();
  });
});
