// The frame of a page for whoever this browser is signed in as, when only the id is at hand
// (error pages: no database read, which may be what failed). Sign-out is the link to the page
// that asks first, since such pages carry no form token.
import type { PageFrame } from './layout.js';

export function frameFor(instanceName: string, userId: string | undefined): PageFrame {
  return { instanceName, account: userId === undefined ? undefined : { label: userId } };
}
