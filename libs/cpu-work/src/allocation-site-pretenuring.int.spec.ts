import { isolateFlagProbe } from './testing/isolate-flag-probe';

/**
 * Once turnOffAllocationSitePretenuring has run, a thread started afterwards makes no pretenuring
 * decision, even for a site whose every object outlives its young collections (V8 reports each
 * verdict under --trace-pretenuring-statistics); without it, the same thread judges the site one
 * to tenure (a "maybe" first, final when its young generation is at its largest).
 */
describe('pretenuring by allocation site in the threads', () => {
  const run = isolateFlagProbe(
    'allocation-site-pretenuring',
    `const { Worker } = require('node:worker_threads');
if (process.argv[2] === 'call') require('./allocation-site-pretenuring').turnOffAllocationSitePretenuring();
const thread = new Worker(
  "const kept = []; const make = (i) => ({ i }); for (let i = 0; i < 3e6; i++) kept.push(make(i));" +
  "require('node:worker_threads').parentPort.postMessage(kept.length);",
  { eval: true, resourceLimits: { maxOldGenerationSizeMb: 400, maxYoungGenerationSizeMb: 16 } },
);
thread.on('message', (kept) => console.log('kept ' + kept));
`,
  );
  // V8's verdicts on allocation sites ("undecided => maybe tenure", "maybe tenure => tenure"…).
  const verdicts = (mode: 'call' | 'skip') => {
    const out = run(['--trace-pretenuring-statistics'], mode);
    expect(out).toContain('kept 3000000');
    return out.split('\n').filter((line) => line.includes('pretenuring: AllocationSite(') && line.includes('=> '));
  };

  it('judges no site once it is turned off', () => {
    expect(verdicts('call')).toEqual([]);
  });

  it('judges the kept objects’ site, and would tenure it, without it (what the function is there for)', () => {
    expect(verdicts('skip').some((line) => /=> (maybe )?tenure$/.test(line))).toBe(true);
  });
});
