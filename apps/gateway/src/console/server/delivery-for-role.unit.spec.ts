import { attemptForRole } from './delivery-for-role';

describe('attemptForRole', () => {
  const echoed = JSON.stringify({
    received: {
      review_url: 'https://api.example.com/review/dfc49405?signature=bIo8g1dfbZe1pzFgtVP8dbjZpQC7Et1eW2JrLruHkBg',
      download_url: 'https://bucket.s3.amazonaws.com/runs/x/output.json?X-Amz-Expires=3600&X-Amz-Signature=9f86d081884c7d65&X-Amz-Date=1',
    },
  });
  const attempt = { attempt: 1, response_excerpt: echoed };

  it('withholds what the receiver answered from a viewer: an echo can carry the secret or a link that acts in any form', () => {
    for (const excerpt of [echoed, '{"secret":"V0hTRUNfYWJj"}', 'WHSEC_ABCDEF0123456789']) {
      expect(attemptForRole({ attempt: 1, response_excerpt: excerpt }, 'viewer')).toEqual({
        attempt: 1,
        response_excerpt: null,
        response_excerpt_withheld: true,
      });
    }
  });

  it("hides a viewer the URL's password, every query value and its fragment; the rest of it, and owners' and admins' view, stay", () => {
    const seen = (url: string) => attemptForRole({ url, response_excerpt: null }, 'viewer').url;
    expect(seen('http://user:s3cret@127.0.0.1:4100/ok/userinfo?x=1#frag')).toBe(
      'http://user:[hidden]@127.0.0.1:4100/ok/userinfo?x=[hidden]#[hidden]',
    );
    expect(seen('https://hooks.example.com/in?token=ab%2Bcd&team=7')).toBe('https://hooks.example.com/in?token=[hidden]&team=[hidden]');
    expect(seen('https://hooks.example.com/in?access_token=abc')).toBe('https://hooks.example.com/in?access_token=[hidden]');
    // A password holding "@", or written alone.
    expect(seen('https://user:p@ss@hooks.example.com/')).toBe('https://user:[hidden]@hooks.example.com/');
    expect(seen('https://:pw@hooks.example.com/')).toBe('https://:[hidden]@hooks.example.com/');
    // A user name alone is no secret; an @ in the path is no user information.
    expect(seen('https://user@hooks.example.com/a')).toBe('https://user@hooks.example.com/a');
    expect(seen('https://hooks.example.com/a:b@c')).toBe('https://hooks.example.com/a:b@c');
    expect(attemptForRole({ url: 'http://user:s3cret@h.example/', response_excerpt: null }, 'admin').url).toBe(
      'http://user:s3cret@h.example/',
    );
  });

  it('leaves owners and admins the answer as it came, and an attempt with no answer as it is', () => {
    expect(attemptForRole(attempt, 'owner')).toBe(attempt);
    expect(attemptForRole(attempt, 'admin')).toBe(attempt);
    const none = { attempt: 2, response_excerpt: null };
    expect(attemptForRole(none, 'viewer')).toEqual(none);
  });
});
