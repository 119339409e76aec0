// Fixing switches from `/front history`: the owner's own pages carry one numbered button per switch
// (`switch-pick:<owner>:<switch>`); a press answers privately with Edit and Delete. Edit opens a form
// (alters by name, the time as `parseWhen` reads it, in the owner's time zone); Delete asks for a
// confirmation whose button only the owner may press. Every press checks who pressed: the buttons
// sit on a message others can see.
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  type ButtonInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { Switch } from '../domain/front.js';
import { ApiError, type ApiClient } from './api-client.js';
import type { BotContext, ButtonHandler } from './command.js';
import { alterName } from './embeds.js';
import type { LinkedAccounts } from './links/linked-accounts.js';
import type { Responder } from './responder.js';
import { formatWallClock, parseWhen, zoneOf } from './when.js';

const PICK = 'switch-pick:';
const EDIT = 'switch-edit:';
const DELETE = 'switch-delete:';
const CONFIRM = 'switch-confirm:';
export const SWITCH_FORM = 'switch-form:';

const ids = (customId: string, prefix: string): { ownerId: string; switchId: number } | undefined => {
  const match = new RegExp(`^${prefix}(\\d{17,20}):(\\d{1,15})$`).exec(customId);
  return match ? { ownerId: match[1] as string, switchId: Number(match[2]) } : undefined;
};

const NOT_YOURS = 'Only the system’s owner can change its switches.';

/** The owner's time zone: `systemTimezone` of their system when the service has it, else UTC. */
export async function ownerZone(api: ApiClient, accounts: LinkedAccounts, userId: string): Promise<string> {
  const system = await accounts.withToken(userId, (token) => api.getSystem(token, '@me'));
  return zoneOf(system);
}

/** The numbered buttons under an owner's history page: one per switch, in the page's order. */
export function switchPickRows(ownerId: string, switches: readonly Switch[], firstNumber: number): ActionRowBuilder<ButtonBuilder>[] {
  const rows: ActionRowBuilder<ButtonBuilder>[] = [];
  switches.slice(0, 10).forEach((entry, index) => {
    if (index % 5 === 0) rows.push(new ActionRowBuilder<ButtonBuilder>());
    rows.at(-1)?.addComponents(
      new ButtonBuilder()
        .setCustomId(`${PICK}${ownerId}:${entry.switchId}`)
        .setLabel(`Fix ${firstNumber + index}`)
        .setStyle(ButtonStyle.Secondary),
    );
  });
  return rows;
}

function checkOwner(interaction: ButtonInteraction | ModalSubmitInteraction, ownerId: string): void {
  if (interaction.user.id !== ownerId) throw new ApiError('problem', 403, 'not-matching-oauth', NOT_YOURS);
}

const pick: ButtonHandler = {
  prefix: PICK,
  replies: 'privately',
  async press(interaction, _context, reply) {
    const found = ids(interaction.customId, PICK);
    if (!found) return;
    checkOwner(interaction, found.ownerId);
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId(`${EDIT}${found.ownerId}:${found.switchId}`).setLabel('Edit alters or time').setStyle(ButtonStyle.Primary),
      new ButtonBuilder().setCustomId(`${DELETE}${found.ownerId}:${found.switchId}`).setLabel('Delete').setStyle(ButtonStyle.Danger),
    );
    await reply.send({ content: `Switch ${found.switchId}: change who fronted or when, or delete it.`, components: [row] });
  },
};

const edit: ButtonHandler = {
  prefix: EDIT,
  async press(interaction) {
    const found = ids(interaction.customId, EDIT);
    if (!found) return;
    checkOwner(interaction, found.ownerId);
    const modal = new ModalBuilder()
      .setCustomId(`${SWITCH_FORM}${found.ownerId}:${found.switchId}`)
      .setTitle(`Edit switch ${found.switchId}`)
      .addComponents(
        new ActionRowBuilder<TextInputBuilder>().addComponents(
          new TextInputBuilder()
            .setCustomId('alters')
            .setLabel('Who fronted (the primary first)')
            .setPlaceholder('Names, separated by commas; “nobody” for a switch-out; empty keeps them')
            .setStyle(TextInputStyle.Short)
            .setRequired(false)
            .setMaxLength(1000),
        ),
        new ActionRowBuilder<TextInputBuilder>().addComponents(
          new TextInputBuilder()
            .setCustomId('when')
            .setLabel('When (in your time zone)')
            .setPlaceholder('15m ago, yesterday 21:00, 2026-11-27 18:30; empty keeps it')
            .setStyle(TextInputStyle.Short)
            .setRequired(false)
            .setMaxLength(100),
        ),
      );
    await interaction.showModal(modal);
  },
};

const remove: ButtonHandler = {
  prefix: DELETE,
  replies: 'privately',
  async press(interaction, _context, reply) {
    const found = ids(interaction.customId, DELETE);
    if (!found) return;
    checkOwner(interaction, found.ownerId);
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId(`${CONFIRM}${found.ownerId}:${found.switchId}`).setLabel('Yes, delete it').setStyle(ButtonStyle.Danger),
    );
    await reply.send({ content: `Delete switch ${found.switchId}? This cannot be undone.`, components: [row] });
  },
};

const confirm: ButtonHandler = {
  prefix: CONFIRM,
  replies: 'privately',
  async press(interaction, { api, accounts }, reply) {
    const found = ids(interaction.customId, CONFIRM);
    if (!found) return;
    checkOwner(interaction, found.ownerId);
    const { alsoDeleted } = await accounts.withToken(interaction.user.id, (token) => api.deleteSwitch(token, found.switchId));
    const twin =
      alsoDeleted.length > 0
        ? ` Switch ${alsoDeleted.join(', ')} went too: without it, it repeated the switch before it (two switches in a row are never the same).`
        : '';
    await reply.send({ content: `Deleted switch ${found.switchId}.${twin}`, components: [] });
  },
};

export const switchButtons: ButtonHandler[] = [pick, edit, remove, confirm];

/** The alters a form names, in order: names, usernames or ids; “nobody” for none. */
async function altersNamed(context: BotContext, userId: string, typed: string): Promise<number[]> {
  if (/^(nobody|none|out|switch[- ]?out)$/i.test(typed.trim())) return [];
  const found: number[] = [];
  for (const part of typed.split(',').map((name) => name.trim()).filter(Boolean)) {
    const alter = await context.alters.resolve(userId, part);
    if (!alter) throw new ApiError('problem', 404, 'unknown-alter', `No alter called “${part.slice(0, 100)}” in your system.`, 'alters');
    if (found.includes(alter.alterId)) throw new ApiError('problem', 400, 'validation', `You named ${alterName(alter)} twice: name each fronter once.`, 'alters');
    found.push(alter.alterId);
  }
  if (found.length === 0) throw new ApiError('problem', 400, 'validation', 'Name who fronted, or write “nobody” for a switch-out.', 'alters');
  return found;
}

export const switchForm = {
  prefix: SWITCH_FORM,
  async submit(interaction: ModalSubmitInteraction, context: BotContext, reply: Responder): Promise<void> {
    const found = ids(interaction.customId, SWITCH_FORM);
    if (!found) return;
    checkOwner(interaction, found.ownerId);
    const typedAlters = interaction.fields.getTextInputValue('alters').trim();
    const typedWhen = interaction.fields.getTextInputValue('when').trim();
    if (typedAlters === '' && typedWhen === '') {
      await reply.send({ content: 'Nothing to change: the switch stays as it was.' });
      return;
    }
    const { api, accounts } = context;
    const change: { alterIds?: number[]; at?: number } = {};
    if (typedAlters !== '') change.alterIds = await altersNamed(context, interaction.user.id, typedAlters);
    const zone = typedWhen === '' ? 'UTC' : await ownerZone(api, accounts, interaction.user.id);
    if (typedWhen !== '') {
      const parsed = parseWhen(typedWhen, { now: Date.now(), zone });
      if ('error' in parsed) throw new ApiError('problem', 400, 'validation', parsed.error, 'when');
      change.at = parsed.at;
    }
    const edited = await accounts.withToken(interaction.user.id, (token) => api.editSwitch(token, found.switchId, change));
    const names = edited.alterIds.length === 0 ? 'nobody (a switch-out)' : (await Promise.all(edited.alterIds.map(async (id) => {
      const alter = await context.alters.resolve(interaction.user.id, String(id));
      return alter ? `**${alterName(alter)}**` : `alter ${id}`;
    }))).join(', ');
    const at = Date.parse(edited.switchedAt);
    await reply.send({ content: `Switch ${edited.switchId} now says ${names} from <t:${Math.floor(at / 1000)}:f>${typedWhen === '' ? '' : ` (${formatWallClock(at, zone)} ${zone})`}.` });
  },
};
