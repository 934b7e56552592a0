import { setFlagsFromString } from 'node:v8';

/**
 * V8 allocates the objects of an allocation site (an array or object literal) straight in the
 * old generation once it has seen most of them outlive a young collection, and that choice is
 * final for the site. For a file-work thread it is a coin toss: papaparse's per-row array was
 * found alive in 82-96% of the collections that judged it, and past 85% every row's array went
 * to the old generation for the rest of the read. An old array keeps its young cells alive
 * through every young collection until a full one, so each row's cells were copied and then
 * promoted: 173-189 MB promoted for half of a 1M-row output instead of 16-18 MB, three times the
 * full collections, and that half a second to a second slower, in about one run in seven
 * (docs/decisions.md, "Pretenuring by allocation site, off"). V8 reads the flag at every
 * collection, so it holds at once for every isolate of the process, the API's thread's too, whose
 * per-request objects never live long enough to gain from it; the sites its start-up had already
 * judged to tenure (module loading, Nest's set-up) stay so.
 */
export function turnOffAllocationSitePretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
