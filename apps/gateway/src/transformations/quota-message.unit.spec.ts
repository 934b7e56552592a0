import { quotaExceededMessage } from './quota-message';

describe("the quota's 429 message", () => {
  const then = ' Dry runs are still possible; ask an administrator to raise the quota.';

  it('says the quota is used up when the use reached it', () => {
    expect(quotaExceededMessage(100, 100)).toBe(`The organization has used all 100 review preparations of its quota.${then}`);
    expect(quotaExceededMessage(1, 1)).toBe(`The organization has used the 1 review preparation of its quota.${then}`);
  });

  it('says both numbers when the quota was set below the use, and that a quota of 0 allows none', () => {
    expect(quotaExceededMessage(3, 5)).toBe(`The organization has used 5 review preparations, more than its quota of 3.${then}`);
    expect(quotaExceededMessage(1, 2)).toBe(`The organization has used 2 review preparations, more than its quota of 1.${then}`);
    for (const used of [0, 1, 7])
      expect(quotaExceededMessage(0, used)).toBe(`The organization's quota allows no review preparations.${then}`);
  });
});
