import Ajv, { type ValidateFunction } from 'ajv';
import { isRunEventType } from './run-events';
import schemas from './run-event-schemas.json';

/**
 * Checks a stored run event's payload against its contract: the JSON Schema that
 * `scripts/generate-asyncapi.js` writes from the types in run-events.ts (the same schemas
 * docs/asyncapi.json gives downstream teams), so the check and the types cannot drift apart.
 * Members the contract does not name are allowed (a newer release may add optional ones).
 */
const ajv = new Ajv({ strict: false, allErrors: false });
ajv.addSchema({ ...schemas, $id: 'run-events' });
const validators = new Map<string, ValidateFunction>();

const validatorOf = (type: string): ValidateFunction => {
  let validate = validators.get(type);
  if (!validate) {
    validate = ajv.getSchema(`run-events#/definitions/${type}`)!;
    validators.set(type, validate);
  }
  return validate;
};

/**
 * What is wrong with a run event's `data` (e.g. "data/schema must be object"), or null when it matches
 * its type's contract. A type this code does not know is not judged: it was written by a newer release,
 * and the fold leaves it out by the versioning policy (docs/events.md).
 */
export function runEventDataProblem(type: string, data: unknown): string | null {
  if (!isRunEventType(type)) return null;
  const validate = validatorOf(type);
  if (validate(data)) return null;
  return ajv.errorsText(validate.errors, { dataVar: 'data', separator: '; ' });
}
