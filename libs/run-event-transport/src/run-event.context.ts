import { BaseRpcContext } from '@nestjs/microservices';
import type { RunStep } from './run-step';

/** What a run-event handler gets besides the event (`@Ctx()`): the bus lane it came from and its step. */
export class RunEventContext extends BaseRpcContext<[lane: string, step: RunStep]> {
  get lane(): string {
    return this.args[0];
  }

  get step(): RunStep {
    return this.args[1];
  }
}
