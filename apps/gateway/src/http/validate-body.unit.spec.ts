import { callbackUrlProblem } from './validate-body';

describe('callbackUrlProblem', () => {
  it('takes an http(s) URL whose every character a URL may carry as it is', () => {
    for (const url of ['https://hooks.example.com/in?token=a%20b#x', 'http://hooks.example.com:8080/a/b', 'https://bücher.example/ü']) {
      expect({ url, problem: callbackUrlProblem(url, false) }).toEqual({ url, problem: null });
    }
  });

  it('refuses blanks, control and invisible characters, and half a character: the address called would not be the one shown', () => {
    for (const url of [
      'http://hooks.example.com/a b',
      'http://hooks.example.com/\u0000',
      'http://hooks.example.com/\u202e',
      'http://hooks.example.com/in\u200b',
      'http://hooks.example.com/\ud800',
      'http://hooks.example.com/\ta',
      ' http://hooks.example.com/',
    ]) {
      expect({ url, problem: callbackUrlProblem(url, false) }).toEqual({ url, problem: 'must be a valid URL.' });
    }
  });

  it('refuses a URL not written as scheme://host, or with a backslash: the parser would mend it into another address', () => {
    for (const url of [
      'https:example.com/in',
      'https:/example.com/in',
      'https:///example.com/in',
      'http:127.0.0.1:3932/in',
      'http:\\\\hooks.example.com\\in',
      'https://hooks.example.com\\in',
      'https://\\hooks.example.com/in',
      'https://?x',
      'https://#x',
    ]) {
      expect({ url, problem: callbackUrlProblem(url, false) }).toEqual({ url, problem: 'must be a valid URL.' });
    }
    for (const url of ['HTTPS://hooks.example.com/in', 'https://user@hooks.example.com/in', 'https://[2001:db8::1]:8443/in']) {
      expect({ url, problem: callbackUrlProblem(url, false) }).toEqual({ url, problem: null });
    }
  });

  it('asks for https in production, and for a URL at all', () => {
    expect(callbackUrlProblem('http://hooks.example.com/', true)).toBe('must use HTTPS.');
    expect(callbackUrlProblem('ftp://hooks.example.com/', false)).toBe('must be a valid URL.');
    expect(callbackUrlProblem(42, false)).toBe('must be a valid URL.');
    expect(callbackUrlProblem(null, true)).toBeNull();
  });
});
