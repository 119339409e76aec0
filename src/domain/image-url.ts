// One rule for every image URL Discord shows (alter and system avatars and banners, webhook avatars,
// tag icons): what the service stores and what the bot sends. Discord refuses, as
// URL_TYPE_INVALID_URL, URLs that `new URL()` happily parses but that hold characters outside RFC
// 3986 (a space, `|`, `^`, a stray `%`...). Rather than refuse what a person pasted from a browser,
// such a URL is percent-encoded the way a browser would send it; what still cannot be made into
// one Discord takes (not http(s), no host, credentials, too long once encoded) is refused.

export const MAX_IMAGE_URL_LENGTH = 2048;

// RFC 3986's unreserved and reserved characters, less the brackets (only an IPv6 host may hold
// them, and the host is taken from the parser, not from this pattern); `%` only as an escape.
const OUTSIDE_RFC_3986 = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]/g;
const ACCEPTED_AS_TYPED = /^(?:[A-Za-z0-9\-._~:/?#@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

/**
 * The form of `value` Discord accepts as an image URL, or null when it has none. Idempotent: an
 * accepted URL maps to itself, so stored values and values sent to Discord agree.
 */
export function discordImageUrl(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') return null;
  // Credentials in an image link would be shown to everyone who sees the embed.
  if (url.username !== '' || url.password !== '') return null;
  // A URL already in the accepted form is kept as typed (`https://example.com` gains no slash).
  if (ACCEPTED_AS_TYPED.test(value) && /^https?:\/\/[^/?#]/i.test(value)) return value.length <= MAX_IMAGE_URL_LENGTH ? value : null;
  // The parser has already percent-encoded what WHATWG encodes (spaces in the path, non-ASCII) and
  // turned lone surrogates into U+FFFD, so what is left to encode is ASCII.
  const rest = `${url.pathname}${url.search}${url.hash}`.replace(OUTSIDE_RFC_3986, (char) => encodeURIComponent(char));
  const normalised = `${url.protocol}//${url.host}${rest}`;
  return normalised.length <= MAX_IMAGE_URL_LENGTH ? normalised : null;
}

/** The sentence a person sees when an image URL is refused. */
export const IMAGE_URL_RULE = `must be an absolute http:// or https:// URL without a user name or password, of at most ${MAX_IMAGE_URL_LENGTH} characters once percent-encoded`;

/** Discord's CDN hosts, whose attachment links carry an expiry (ex/is/hm parameters). */
const DISCORD_CDN_HOSTS = new Set(['cdn.discordapp.com', 'media.discordapp.net', 'cdn.discord.com', 'media.discord.net']);

/**
 * Whether `value` is a Discord attachment link: signed to expire within a day, so an avatar set to
 * one breaks. The service fetches nothing from elsewhere; the image is uploaded instead.
 */
export function isExpiringAttachmentLink(value: string): boolean {
  try {
    const url = new URL(value);
    return DISCORD_CDN_HOSTS.has(url.hostname.toLowerCase()) && /^\/(ephemeral-)?attachments\//.test(url.pathname);
  } catch {
    return false;
  }
}

/** The sentence a person sees when an image field is given an attachment link. */
export const EXPIRING_LINK_RULE =
  'is a Discord attachment link, which stops working within a day: upload the image (POST /v1/users/{user}/images, or give the bot the file) and use the URL that answers';
