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

  it('take a bound past the year 9999 (or before 0000) at the edge, where its ISO text would sort before every run', () => {
    // 9999-12-31T24:00:00Z is 10000-01-01, written `+010000-01-01T…`: a run of 2026 was not "created before" it.
    for (const created_before of ['9999-12-31T24:00:00Z', '9999-12-31T23:00:00-14:00'])
      expect(parseRunListQuery({ created_before }).filter.created_before).toBe('9999-12-31T23:59:59.999Z');
    expect(parseRunListQuery({ created_before: '9999-12-31' }).filter.created_before).toBe('9999-12-31T23:59:59.999Z');
    // Both bounds together are not "before earlier than after" because of the text either.
    expect(parseRunListQuery({ created_after: '2026-01-01', created_before: '9999-12-31T24:00:00Z' }).filter).toEqual({
      created_after: '2026-01-01T00:00:00.000Z',
      created_before: '9999-12-31T23:59:59.999Z',
    });
    expect(parseRunListQuery({ created_after: '0000-01-01T00:00:00+14:00' }).filter.created_after).toBe('0000-01-01T00:00:00.000Z');
  });
});
