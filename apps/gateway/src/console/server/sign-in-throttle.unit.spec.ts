import type { AppConfig } from '@app/config';
import { SignInThrottle } from './sign-in-throttle';

const throttle = (account: number, address: number) =>
  new SignInThrottle({ console: { signInAccountLimit: account, signInAddressLimit: address, signInWindowSeconds: 900 } } as AppConfig);

const outcomes = async (attempts: Promise<unknown>[]) =>
  (await Promise.allSettled(attempts)).map((r) => (r.status === 'fulfilled' ? 'checked' : (r.reason as { status: number }).status));

describe('SignInThrottle', () => {
  it('lets through no more password checks than the account allows, even when all are sent at once', async () => {
    const t = throttle(5, 100);
    const answers = await outcomes(Array.from({ length: 30 }, () => t.begin('a@example.com', '10.0.0.1')));
    expect(answers.filter((a) => a === 'checked')).toHaveLength(5);
    expect(answers.filter((a) => a === 429)).toHaveLength(25);
  });

  it("tells a locked-out owner whom to ask: an owner's password is reset by the service's operator, not by an owner", async () => {
    const t = throttle(1, 100);
    await (await t.begin('a@example.com', '10.0.0.9')).failed();
    const refusal = (await t.begin('a@example.com', '10.0.0.9').catch((err: unknown) => err)) as { message: string };
    expect(refusal.message).toMatch(/ask an owner of your organization to invite you again: .*\(owners: ask your service operator/);
  });

  it('lets through no more than the address allows, over many accounts at once', async () => {
    const t = throttle(5, 20);
    const answers = await outcomes(Array.from({ length: 40 }, (_, i) => t.begin(`guess-${i}@example.com`, '10.0.0.2')));
    expect(answers.filter((a) => a === 'checked')).toHaveLength(20);
  });

  it("a refused attempt costs nothing; a success clears the account's failures and gives the address its attempt back", async () => {
    const t = throttle(2, 3);
    for (let i = 0; i < 2; i++) await (await t.begin('a@example.com', '10.0.0.3')).failed();
    await expect(t.begin('a@example.com', '10.0.0.3')).rejects.toMatchObject({ status: 429, code: 'too_many_sign_in_attempts' });
    // The address has used 2 of its 3 (the refused one was given back): one more account may still try.
    await (await t.begin('b@example.com', '10.0.0.3')).succeeded();
    await (await t.begin('b@example.com', '10.0.0.3')).succeeded();
    await (await t.begin('c@example.com', '10.0.0.3')).failed();
    await expect(t.begin('d@example.com', '10.0.0.3')).rejects.toMatchObject({ status: 429 });
  });

  it('an attempt whose check could not be made (the store failed) counts for nothing', async () => {
    const t = throttle(2, 2);
    for (let i = 0; i < 5; i++) await (await t.begin('a@example.com', '10.0.0.4')).abandoned();
    await (await t.begin('a@example.com', '10.0.0.4')).failed();
    await (await t.begin('a@example.com', '10.0.0.4')).failed();
    await expect(t.begin('a@example.com', '10.0.0.4')).rejects.toMatchObject({ status: 429 });
  });

  it("a success beside guesses still being checked leaves those guesses counted: the owner's sign-in gives no free guesses", async () => {
    const t = throttle(5, 100);
    const owner = await t.begin('a@example.com', '10.0.0.5');
    const guesses = await Promise.all([t.begin('a@example.com', '10.0.0.6'), t.begin('a@example.com', '10.0.0.6')]);
    await owner.succeeded();
    for (const guess of guesses) await guess.failed();
    // The two guesses count: 3 of the 5 are left.
    const answers = await outcomes(Array.from({ length: 5 }, () => t.begin('a@example.com', '10.0.0.7')));
    expect(answers.filter((a) => a === 'checked')).toHaveLength(3);
    expect(answers.filter((a) => a === 429)).toHaveLength(2);
  });

  it('a success once nothing else is being checked clears every failure of the account', async () => {
    const t = throttle(3, 100);
    for (let i = 0; i < 2; i++) await (await t.begin('a@example.com', '10.0.0.8')).failed();
    const abandoned = await t.begin('a@example.com', '10.0.0.8');
    await abandoned.abandoned();
    await (await t.begin('a@example.com', '10.0.0.8')).succeeded();
    const answers = await outcomes(Array.from({ length: 4 }, () => t.begin('a@example.com', '10.0.0.8')));
    expect(answers.filter((a) => a === 'checked')).toHaveLength(3);
  });
});
