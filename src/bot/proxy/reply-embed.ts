// A webhook cannot reply, so a proxied reply carries a small embed that names and links the message
// it answered, with the start of its text (embeds never ping).
import type { APIEmbed, Message } from 'discord.js';
import { shorten } from './webhook-name.js';

const EXCERPT = 100;

export async function replyEmbedFor(message: Message<true>): Promise<APIEmbed[]> {
  if (!message.reference?.messageId) return [];
  let replied: Message;
  try {
    replied = await message.fetchReference();
  } catch {
    return []; // deleted or not visible: the proxied message stands on its own
  }
  const name = replied.member?.displayName ?? replied.author.displayName;
  const text = replied.content.replace(/\s+/g, ' ').trim();
  const excerpt = text === '' ? (replied.attachments.size > 0 ? '*(attachment)*' : '*(no text)*') : shorten(text, EXCERPT);
  return [
    {
      author: { name: `${name} ↩`, icon_url: replied.author.displayAvatarURL({ size: 64 }) },
      description: `**[Reply to:](${replied.url})** ${excerpt}`,
    },
  ];
}
