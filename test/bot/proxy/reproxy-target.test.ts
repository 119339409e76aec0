// Which message a /reproxy `message:` names: a link from this server (any Discord host, with or
// without <>) or a bare id meaning this channel; anything else names nothing.
import { describe, expect, it } from 'vitest';
import { parseMessageRef } from '../../../src/bot/proxy/reproxy-target.js';

const HERE = { guildId: '100000000000000001', channelId: '100000000000000002' };
const M = '100000000000000003';
const C = '100000000000000004';

describe('parseMessageRef', () => {
  it.each([
    [M, { channelId: HERE.channelId, messageId: M }],
    [` ${M} `, { channelId: HERE.channelId, messageId: M }],
    [`https://discord.com/channels/${HERE.guildId}/${C}/${M}`, { channelId: C, messageId: M }],
    [`<https://discord.com/channels/${HERE.guildId}/${C}/${M}>`, { channelId: C, messageId: M }],
    [`https://canary.discord.com/channels/${HERE.guildId}/${C}/${M}`, { channelId: C, messageId: M }],
    [`https://ptb.discordapp.com/channels/${HERE.guildId}/${C}/${M}/`, { channelId: C, messageId: M }],
    // Another server's message, a DM link, other hosts and shapes: nothing.
    [`https://discord.com/channels/100000000000000009/${C}/${M}`, undefined],
    [`https://discord.com/channels/@me/${C}/${M}`, undefined],
    [`https://evil.example/channels/${HERE.guildId}/${C}/${M}`, undefined],
    [`http://discord.com/channels/${HERE.guildId}/${C}/${M}`, undefined],
    [`https://discord.com/channels/${HERE.guildId}/${C}`, undefined],
    ['12345', undefined],
    ['', undefined],
  ])('%j', (text, expected) => {
    expect(parseMessageRef(text, HERE)).toEqual(expected);
  });
});
