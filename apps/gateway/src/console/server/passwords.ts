import * as argon2 from 'argon2';

export const MIN_PASSWORD_LENGTH = 12;
/** argon2 takes any length; a cap keeps one sign-in from costing a megabyte of hashing input. */
export const MAX_PASSWORD_LENGTH = 256;

/** Why a new password is refused, in the words the console shows beside the field; null when it is good. */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string' || password.length === 0) return 'Choose a password.';
  if (password.length < MIN_PASSWORD_LENGTH) return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`;
  return null;
}

/** argon2id with the package's default cost (OWASP's recommended parameters or stronger). */
export const hashPassword = (password: string): Promise<string> => argon2.hash(password, { type: argon2.argon2id });

/**
 * A hash of nothing anyone knows, checked when the e-mail has no account, so that a sign-in
 * for an unknown e-mail takes as long as one with a wrong password.
 */
let decoy: Promise<string> | null = null;

export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (typeof password !== 'string' || password.length > MAX_PASSWORD_LENGTH) return false;
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  const against = hash ?? (await decoy);
  try {
    const ok = await argon2.verify(against, password);
    return hash !== null && ok;
  } catch {
    return false;
  }
}
