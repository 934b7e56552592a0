import { attemptForRole } from './delivery-for-role';

describe('attemptForRole', () => {
  const echoed = JSON.stringify({
    received: {
      review_url: 'https://api.example.com/review/dfc49405?signature=bIo8g1dfbZe1pzFgtVP8dbjZpQC7Et1eW2JrLruHkBg',
      download_url: 'https://bucket.s3.amazonaws.com/runs/x/output.json?X-Amz-Expires=3600&X-Amz-Signature=9f86d081884c7d65&X-Amz-Date=1',
    },
  });
  const attempt = { attempt: 1, response_excerpt: echoed };

  it("hides a viewer's signatures in what the receiver answered, and nothing else", () => {
    const seen = attemptForRole(attempt, 'viewer').response_excerpt;
    expect(seen).not.toContain('bIo8g1dfbZe1pzFgtVP8dbjZpQC7Et1eW2JrLruHkBg');
    expect(seen).not.toContain('9f86d081884c7d65');
    expect(seen).toBe(
      echoed
        .replace('signature=bIo8g1dfbZe1pzFgtVP8dbjZpQC7Et1eW2JrLruHkBg', 'signature=[hidden]')
        .replace('X-Amz-Signature=9f86d081884c7d65', 'X-Amz-Signature=[hidden]'),
    );
  });

  it('hides them percent-encoded too (a receiver that echoes a form-encoded copy)', () => {
    const encoded = encodeURIComponent('https://api.example.com/review/dfc49405?signature=bIo8g1dfbZe1pzFgtVP8dbjZpQC7Et1eW2JrLruHkBg&x=1');
    const seen = attemptForRole({ response_excerpt: `url=${encoded}` }, 'viewer').response_excerpt;
    expect(seen).not.toContain('bIo8g1dfbZe1pzFgtVP8dbjZpQC7Et1eW2JrLruHkBg');
    expect(seen).toContain('%3Fsignature%3D[hidden]%26x%3D1');
  });

  it('hides them under a name written with percent-encoded letters (the server reads sig%6eature as signature)', () => {
    for (const name of ['sig%6eature', '%73ignature', 'SIG%6Eature', 'x-amz-%73ignature']) {
      const seen = attemptForRole(
        { response_excerpt: `/review/r1/state?${name}=rET5-3TU44lo1OdFADppLB3dP&x=1` },
        'viewer',
      ).response_excerpt;
      expect({ name, seen }).toEqual({ name, seen: `/review/r1/state?${name}=[hidden]&x=1` });
    }
  });

  it('hides a whole value written with percent-encoded characters (a base64 token), up to the next & written or encoded', () => {
    const seen = (excerpt: string) => attemptForRole({ response_excerpt: excerpt }, 'viewer').response_excerpt;
    expect(seen('/in?token=ab%2Bcd%2Fef%3D%3D&x=1')).toBe('/in?token=[hidden]&x=1');
    expect(seen('url=%2Fin%3Ftoken%3Dab%2Bcd%26x%3D1')).toBe('url=%2Fin%3Ftoken%3D[hidden]%26x%3D1');
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
