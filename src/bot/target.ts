// `{user}` in the service's paths, as the bot spells it: `@me` for the viewer's own system (read
// with the viewer's token), the owner's Discord id for anyone else's. Worked out here only.

/** The `{user}` path segment for `viewerId` looking at `ownerId`'s system (their own when none is given). */
export function targetFor(viewerId: string, ownerId: string | null | undefined): string {
  return !ownerId || ownerId === viewerId ? '@me' : ownerId;
}

/** Whose system `target` names, as seen by `viewerId` (the reverse of targetFor). */
export function ownerOf(target: string, viewerId: string): string {
  return target === '@me' ? viewerId : target;
}
