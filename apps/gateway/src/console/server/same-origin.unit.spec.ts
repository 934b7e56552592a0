import { isSameOrigin } from './same-origin';

const PUBLIC = 'https://console.example.com';
const sent = (headers: Record<string, string>) => isSameOrigin(headers, PUBLIC, 'http');

describe('isSameOrigin', () => {
  it("takes the public origin, and a loopback Host's own origin", () => {
    expect(sent({ host: 'svc.internal:3000', origin: PUBLIC })).toBe(true);
    expect(sent({ host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' })).toBe(true);
    expect(sent({ host: 'localhost:3000', origin: 'http://localhost:3000' })).toBe(true);
    expect(sent({ host: '[::1]:3000', origin: 'http://[::1]:3000' })).toBe(true);
    expect(sent({ host: 'localhost:3000', referer: 'http://localhost:3000/console/sign-in' })).toBe(true);
  });

  it('refuses a Host that names another machine, even when the Origin names it too (DNS rebinding)', () => {
    expect(sent({ host: 'evil.example', origin: 'http://evil.example' })).toBe(false);
    expect(sent({ host: 'localhost.evil.example', origin: 'http://localhost.evil.example' })).toBe(false);
    expect(sent({ host: '127.0.0.1.nip.io', origin: 'http://127.0.0.1.nip.io' })).toBe(false);
  });

  it('refuses another origin, another port or scheme of a loopback Host, and the null origin', () => {
    expect(sent({ host: 'localhost:3000', origin: 'http://localhost:4000' })).toBe(false);
    expect(sent({ host: 'localhost:3000', origin: 'https://localhost:3000' })).toBe(false);
    expect(sent({ host: 'localhost:3000', origin: 'https://evil.example' })).toBe(false);
    expect(sent({ host: 'localhost:3000', origin: 'null' })).toBe(false);
  });

  it('passes a request with neither Origin nor Referer (not a browser cross-site request; the token still applies)', () => {
    expect(sent({ host: 'evil.example' })).toBe(true);
  });
});
