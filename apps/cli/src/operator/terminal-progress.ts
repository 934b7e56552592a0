import { SingleBar, Presets } from 'cli-progress';
import type { RebuildProgress } from './rebuild-read-model';

/** A progress bar on stderr (stdout stays for the report); nothing when stderr is not a terminal. */
export function terminalProgress(): RebuildProgress {
  let bar: SingleBar | null = null;
  return {
    start(total, label) {
      bar = new SingleBar(
        { format: `${label} [{bar}] {percentage}% {value}/{total}`, stream: process.stderr, noTTYOutput: false },
        Presets.shades_classic,
      );
      bar.start(total, 0);
    },
    advance(by = 1) {
      bar?.increment(by);
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
