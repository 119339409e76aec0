// Who is signed in, for the pages the authorization server renders itself (the device flow's):
// the mount (http/plugins/oidc-mount.ts) reads this service's sign-in cookie before handing the
// request to oidc-provider, whose page hooks see only the raw request.
import type { IncomingMessage } from 'node:http';

const signedIn = new WeakMap<IncomingMessage, string>();

export function rememberSignedInUser(request: IncomingMessage, userId: string | undefined): void {
  if (userId === undefined) signedIn.delete(request);
  else signedIn.set(request, userId);
}

export function signedInUserOf(request: IncomingMessage): string | undefined {
  return signedIn.get(request);
}
