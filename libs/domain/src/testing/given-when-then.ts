import type { RunEvent } from '@app/contracts';
import { CommandRefused } from '../errors/domain-error';
import type { RunCommand } from '../run/commands';
import { decide } from '../run/decide';
import { fold } from './run-history.fixtures';

/**
 * The decider in its own words: given a run's history, when a command arrives, then
 * these events (whole, payloads included), or this refusal code.
 *
 *   given([created(), uploaded]).when({ type: 'RecordParse', parse }).then([{ type: 'SourceParsed', data: parse }]);
 */
export function given(history: RunEvent[]) {
  return {
    when(command: RunCommand) {
      const decided = (): RunEvent[] => decide(command, fold(history));
      return {
        then(expected: RunEvent[]): void {
          expect(decided()).toEqual(expected);
        },
        refused(code: string): void {
          let refusal: unknown = null;
          try {
            decided();
          } catch (err) {
            refusal = err;
          }
          expect(refusal).toBeInstanceOf(CommandRefused);
          expect((refusal as CommandRefused).code).toBe(code);
        },
      };
    },
  };
}
