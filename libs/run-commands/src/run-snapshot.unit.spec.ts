import type { StoredEvent } from '@app/contracts';
import { HISTORY } from '@app/domain/testing/run-history.fixtures';
import { foldRun, type MalformedRunEvent } from './run-snapshot';

const stored = (events: { type: string; data: unknown }[], streamId = 'run-r1'): StoredEvent[] =>
  events.map((e, revision) => ({
    ...e,
    event_id: `e${revision}`,
    stream_id: streamId,
    revision,
    position: 10 + revision,
    recorded_at: `2026-01-01T00:00:0${revision}.000Z`,
    metadata: { organization_id: 'o1', correlation_id: 'c', causation_id: 'c', occurred_at: 'x', schema_version: 1 },
  }));

/** A run's fold leaves a malformed stored event out, says so, and goes on (docs/decisions.md, "A malformed event in a run's stream"). */
describe('foldRun over a stream with a malformed event', () => {
  it('leaves it out: the state the other events make, its revision moved on, the event reported', () => {
    const [created, uploaded, parsed] = HISTORY.parsed;
    const seen: MalformedRunEvent[] = [];
    const folded = foldRun(stored([created, { type: 'SourceUploaded', data: { size_bytes: 'big', uploaded_at: 'x' } }, parsed]), (m) =>
      seen.push(m),
    );
    expect(seen).toEqual([
      { stream_id: 'run-r1', revision: 1, position: 11, type: 'SourceUploaded', problem: 'data/size_bytes must be number' },
    ]);
    expect(folded).toMatchObject({ revision: 2, source_uploaded: false, total_rows: (parsed.data as { total_rows: number }).total_rows });
    expect(foldRun(stored([created, uploaded, parsed]))).toMatchObject({ revision: 2, source_uploaded: true });
  });

  it('a malformed RunCreated (or one naming another run) makes no run, and every event after it is reported too', () => {
    const [created, uploaded] = HISTORY.processing;
    const seen: string[] = [];
    const report = (m: MalformedRunEvent) => seen.push(`${m.revision} ${m.type}: ${m.problem}`);
    expect(foldRun(stored([{ type: 'RunCreated', data: { ...(created.data as object), schema: 42 } }, uploaded]), report)).toBeNull();
    expect(seen).toEqual([
      '0 RunCreated: data/schema must be object',
      '1 SourceUploaded: the stream has no readable RunCreated before it (the run was never created)',
    ]);
    expect(foldRun(stored([created], 'run-r2'), report)).toBeNull();
    expect(seen.at(-1)).toBe("0 RunCreated: data/run_id names run r1, not the stream's");
  });

  it('an event whose stored text is not JSON (handed over as the text) is left out, data or metadata alike', () => {
    const [created, uploaded, parsed] = HISTORY.parsed;
    const seen: string[] = [];
    const report = (m: MalformedRunEvent) => seen.push(`${m.revision} ${m.type}: ${m.problem}`);
    const events = stored([created, uploaded, parsed]);
    const folded = foldRun(
      [
        events[0],
        { ...events[1], data: '{"size_bytes": 12, "uploaded_at": ' },
        { ...events[2], metadata: '{"organization_id": "o1"' as unknown as StoredEvent['metadata'] },
      ],
      report,
    );
    expect(seen).toEqual(['1 SourceUploaded: data must be object', '2 SourceParsed: metadata is not a JSON object']);
    expect(folded).toMatchObject({ revision: 2, status: 'awaiting_upload', source_uploaded: false });
  });

  it('a type this release does not know is no malformed event: left out silently, as the versioning policy says', () => {
    const seen: MalformedRunEvent[] = [];
    const folded = foldRun(stored([...HISTORY.awaitingUpload, { type: 'RunArchived', data: 42 }]), (m) => seen.push(m));
    expect([folded?.revision, folded?.status, seen]).toEqual([1, 'awaiting_upload', []]);
  });
});
