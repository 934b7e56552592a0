import { randomBytes } from 'node:crypto';
import { parseSecretsKey } from '@app/config';
import { SecretCipher } from '../secrets/secret-cipher';

/** A cipher with a fresh random key, for tests that open a directory without a service configuration. */
export const testSecretCipher = (): SecretCipher =>
  new SecretCipher({ current: parseSecretsKey(randomBytes(32).toString('base64'), 'test key'), previous: [] });
