/**
 * How large a run's output may grow, in bytes: `ratio` times its source (the rows it is read from),
 * and never less than the largest upload the service takes.
 *
 * Why a limit at all: a reviewer's fixes can lengthen values (a find-and-replace grows a value up to
 * ten times, or to 10,000 characters), so a small file could otherwise write an output thousands of
 * times its size and fill the disk the event store and every other organization's files share.
 * Why these two figures: an output is larger than its source for good reasons (JSON repeats each
 * field's name on every row: with 100-character names and one-character values about 53 times a
 * CSV), which the default ratio of 64 leaves room for; and a small source is never held to less
 * than what one upload may be.
 */
export function outputByteLimit(sourceBytes: number | null, settings: { maxUploadBytes: number; maxOutputRatio: number }): number {
  return Math.max(settings.maxUploadBytes, settings.maxOutputRatio * (sourceBytes ?? 0));
}
