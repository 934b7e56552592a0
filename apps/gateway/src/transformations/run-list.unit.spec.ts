import { inTimeZone } from '../../../../libs/domain/src/testing/in-time-zone';
import { parseRunListQuery } from './run-list';

/** The run list's creation-time filters (the rest of the query: test/e2e/run-list.e2e.spec.ts). */
describe('created_after and created_before', () => {
  const query = {
    created_after: '2026-11-30T19:24',
    created_before: '2026-11-30',
  };
  const expected = { created_after: '2026-11-30T19:24:00.000Z', created_before: '2026-11-30T23:59:59.999Z' };

  it('read a date-time without a zone, and a day, in UTC whatever the time zone of the server', () => {
    expect(parseRunListQuery(query).filter).toEqual(expected);
    for (const tz of ['America/Los_Angeles', 'Asia/Tokyo']) {
      const filter = inTimeZone(tz, { list: `${__dirname}/run-list.ts` }, 'm.list.parseRunListQuery(input).filter', query);
      expect({ tz, filter }).toEqual({ tz, filter: expected });
    }
  });

  it('read a zone when one is written, and refuse a day no month has', () => {
    expect(parseRunListQuery({ created_after: '2026-11-30T19:24:00+02:00' }).filter.created_after).toBe('2026-11-30T17:24:00.000Z');
    expect(() => parseRunListQuery({ created_after: '2026-11-31' })).toThrow();
    expect(() => parseRunListQuery({ created_after: '2026-11-30T25:00' })).toThrow();
    // An offset no zone has (hours past 23) is refused, as one with minutes past 59 is; the widest real ones are read.
    for (const offset of ['+99:00', '+24:00', '-99:99', '+05:60'])
      expect(() => parseRunListQuery({ created_after: `2099-12-05T23:00:00${offset}` })).toThrow();
    expect(parseRunListQuery({ created_after: '2026-11-30T19:24:00+14:00' }).filter.created_after).toBe('2026-11-30T05:24:00.000Z');
    expect(parseRunListQuery({ created_after: '2026-11-30T19:24:00-1200' }).filter.created_after).toBe('2026-12-01T07:24:00.000Z');
  });
});
