// The one image URL rule (avatars, banners, icons, webhook avatars): what the service stores and
// what the bot sends is a URL Discord accepts, percent-encoded; what cannot be one is refused.
import { describe, expect, it } from 'vitest';
import { discordImageUrl } from '../../src/domain/image-url.js';
import { HttpUrl } from '../../src/domain/values.js';

// Discord's URL_TYPE_INVALID_URL, as the fake Discord models it: RFC 3986 characters only.
const acceptedByDiscord = (url: string) => /^https?:\/\/[^/?#\s]+(?:[/?#](?:[A-Za-z0-9\-._~:/?#@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)?$/.test(url);

describe('discordImageUrl', () => {
  it.each([
    ['kept as typed', 'https://cdn.example/a.png', 'https://cdn.example/a.png'],
    ['no slash added', 'https://cdn.example', 'https://cdn.example'],
    ['http too', 'http://cdn.example/a.png', 'http://cdn.example/a.png'],
    ['a space is encoded', 'https://cdn.example/my pic.png', 'https://cdn.example/my%20pic.png'],
    ['spaces in the query and fragment', 'https://cdn.example/a?q=a b#x y', 'https://cdn.example/a?q=a%20b#x%20y'],
    ['characters outside RFC 3986', 'https://cdn.example/a|b^c`d{e}', 'https://cdn.example/a%7Cb%5Ec%60d%7Be%7D'],
    ['brackets outside the host', 'https://cdn.example/a[1].png', 'https://cdn.example/a%5B1%5D.png'],
    ['a stray percent sign', 'https://cdn.example/100%.png', 'https://cdn.example/100%25.png'],
    ['escapes stay', 'https://cdn.example/a%20b.png', 'https://cdn.example/a%20b.png'],
    ['non-ASCII path and host', 'https://exämple.com/ü.png', 'https://xn--exmple-cua.com/%C3%BC.png'],
    ['an IPv6 host', 'https://[::1]:8080/a.png', 'https://[::1]:8080/a.png'],
    ['surrounding spaces dropped', '  https://cdn.example/a.png ', 'https://cdn.example/a.png'],
    ['javascript: refused', 'javascript:alert(1)', null],
    ['data: refused', 'data:image/png;base64,AAAA', null],
    ['ftp: refused', 'ftp://cdn.example/a.png', null],
    ['credentials refused', 'https://user:secret@cdn.example/a.png', null],
    ['not a URL', 'a picture', null],
    ['a space in the host', 'https://cdn example/a.png', null],
    ['too long once encoded', `https://cdn.example/${'a b'.repeat(600)}`, null],
    ['too long as typed', `https://cdn.example/${'a'.repeat(2048)}`, null],
  ])('%s', (_name, input, expected) => {
    expect(discordImageUrl(input)).toBe(expected);
    if (expected !== null) {
      expect(acceptedByDiscord(expected)).toBe(true);
      expect(discordImageUrl(expected)).toBe(expected); // idempotent: stored values are sent unchanged
    }
  });
});

describe('HttpUrl (the service schema of every image field)', () => {
  it('stores the percent-encoded form', () => {
    expect(HttpUrl.parse('https://cdn.example/my pic.png')).toBe('https://cdn.example/my%20pic.png');
  });

  it('refuses what cannot be one, saying why', () => {
    const result = HttpUrl.safeParse('https://user:pw@cdn.example/a.png');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/http:\/\/ or https:\/\/ URL without a user name or password/);
  });
});
