// A proxied message may ping only what its sender could have pinged: users always, @everyone,
// @here and every role only with Mention Everyone in that channel, otherwise only the mentionable
// roles the message names. The webhook itself could ping anything, so this is decided here.
import { AllowedMentionsTypes, PermissionFlagsBits, type APIAllowedMentions, type Message } from 'discord.js';

export function allowedMentionsFor(message: Message<true>): APIAllowedMentions {
  const permissions = message.member?.permissionsIn(message.channel);
  if (permissions?.has(PermissionFlagsBits.MentionEveryone))
    return { parse: [AllowedMentionsTypes.User, AllowedMentionsTypes.Role, AllowedMentionsTypes.Everyone] };
  const roles = message.mentions.roles.filter((role) => role.mentionable).map((role) => role.id);
  return { parse: [AllowedMentionsTypes.User], roles };
}
