// Nickname mode: an alter whose alterMode is `nickname` (or `both`) speaks through the member's
// own messages, with the server nickname set from the system's nicknameFormat when the alter is
// pushed to the front with /front. Placeholders %username% and %display%; Discord allows 32.
import { shorten } from './webhook-name.js';

export const MAX_NICKNAME = 32;

export function nicknameFor(format: string, alter: { username: string | null; displayName: string | null }): string {
  const username = alter.username ?? '';
  const display = alter.displayName ?? username;
  const filled = format.replaceAll('%username%', () => username).replaceAll('%display%', () => display).trim();
  return shorten(filled || display, MAX_NICKNAME);
}
