// A request bound to one user: `login_hint` holding a Discord user id. The bot's /link starts its
// device flow with the id of the person who ran the command, and the flow may only be approved
// as that person (a code passed on, or phished, is refused rather than linked to someone else).
const DISCORD_ID = /^[1-9][0-9]{16,19}$/;

export function boundUserOf(params: Record<string, unknown> | undefined): string | undefined {
  const hint = params?.login_hint;
  return typeof hint === 'string' && DISCORD_ID.test(hint) ? hint : undefined;
}
