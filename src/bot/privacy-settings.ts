// Privacy in words people use. The service keeps privacy as the origin's bitmasks (`public`: a set
// bit shows that part to other users, 0 keeps everything private); chat users see and change it as
// named settings, each public or private, and read it back as "Others see … / Only you see …".
// The one table per kind below drives the command options, the change and the summary alike.
import type { SlashCommandSubcommandBuilder } from 'discord.js';
import { ALTER_PRIVACY_MASK, AlterPrivacy, SYSTEM_PRIVACY_MASK, SystemPrivacy } from '../domain/privacy-bits.js';

export interface PrivacySetting {
  /** The command option (`display-tag`). */
  option: string;
  bit: number;
  /** How summaries name it (`display tag`). */
  label: string;
  /** The option's description in Discord (at most 100 characters). */
  description: string;
}

export interface PrivacyKind {
  settings: readonly PrivacySetting[];
  /** Every bit of the kind: `all: public`. */
  mask: number;
  /** The command that changes it, for hints (`/system privacy`). */
  command: string;
}

export const SYSTEM_PRIVACY: PrivacyKind = {
  command: '/system privacy',
  mask: SYSTEM_PRIVACY_MASK,
  settings: [
    { option: 'name', bit: SystemPrivacy.name, label: 'name', description: 'The system’s name' },
    { option: 'display-tag', bit: SystemPrivacy.displayTag, label: 'display tag', description: 'The tag shown after proxied names' },
    { option: 'description', bit: SystemPrivacy.description, label: 'description', description: 'The system’s description' },
    { option: 'pronouns', bit: SystemPrivacy.pronouns, label: 'pronouns', description: 'The system’s pronouns' },
    { option: 'avatar', bit: SystemPrivacy.avatar, label: 'avatar and color', description: 'The system’s avatar and color' },
    { option: 'banner', bit: SystemPrivacy.banner, label: 'banner', description: 'The system’s banner' },
    { option: 'alters', bit: SystemPrivacy.alters, label: 'alter list and who is fronting', description: 'Your alter list and who is fronting (each alter also has its own settings)' },
    { option: 'tags', bit: SystemPrivacy.tags, label: 'tags', description: 'The system’s tags' },
    { option: 'accounts', bit: SystemPrivacy.subAccounts, label: 'other Discord accounts', description: 'Which other Discord accounts belong to the system' },
  ],
};

/** `listed` comes first: without it an alter does not exist for others, whatever the rest says. */
export const ALTER_PRIVACY: PrivacyKind = {
  command: '/alter privacy',
  mask: ALTER_PRIVACY_MASK,
  settings: [
    { option: 'listed', bit: AlterPrivacy.visible, label: 'that the alter exists', description: 'Whether others see this alter at all (in lists and lookups)' },
    { option: 'name', bit: AlterPrivacy.name, label: 'display name', description: 'The display name' },
    { option: 'username', bit: AlterPrivacy.username, label: 'username', description: 'The username' },
    { option: 'description', bit: AlterPrivacy.description, label: 'description', description: 'The description' },
    { option: 'pronouns', bit: AlterPrivacy.pronouns, label: 'pronouns', description: 'The pronouns' },
    { option: 'avatar', bit: AlterPrivacy.avatar, label: 'avatar and color', description: 'The avatar and color' },
    { option: 'banner', bit: AlterPrivacy.banner, label: 'banner', description: 'The banner' },
    { option: 'proxy-tags', bit: AlterPrivacy.proxyTags, label: 'proxy tags', description: 'The proxy tags' },
    { option: 'tags', bit: AlterPrivacy.tags, label: 'tags', description: 'The alter’s tags' },
    { option: 'messages', bit: AlterPrivacy.messageStats, label: 'message count and last message', description: 'How many messages it sent, and when it last did' },
    { option: 'birthday', bit: AlterPrivacy.birthday, label: 'birthday', description: 'The birthday' },
  ],
};

const CHOICES = [
  { name: 'public: anyone can see it', value: 'public' },
  { name: 'private: only you', value: 'private' },
] as const;

/** Adds `all` and one public/private option per setting to a subcommand. */
export function addPrivacyOptions(sub: SlashCommandSubcommandBuilder, kind: PrivacyKind): SlashCommandSubcommandBuilder {
  sub.addStringOption((o) => o.setName('all').setDescription('Everything at once (the options below still apply on top)').addChoices(...CHOICES));
  for (const setting of kind.settings) sub.addStringOption((o) => o.setName(setting.option).setDescription(setting.description).addChoices(...CHOICES));
  return sub;
}

/**
 * The mask after the options given: `all` first, then each setting named, so `all:public
 * description:private` shows everything but the description. Undefined when no option was given.
 */
export function chosenPrivacy(choiceOf: (option: string) => string | null, kind: PrivacyKind, current: number): number | undefined {
  const all = choiceOf('all');
  const named = kind.settings.map((setting) => [setting, choiceOf(setting.option)] as const).filter(([, choice]) => choice !== null);
  if (all === null && named.length === 0) return undefined;
  let mask = all === null ? current : all === 'public' ? kind.mask : 0;
  for (const [setting, choice] of named) mask = choice === 'public' ? mask | setting.bit : mask & ~setting.bit;
  return mask;
}

/** Which settings others can see and which only the owner can. */
export function privacySplit(mask: number, kind: PrivacyKind): { shown: string[]; hidden: string[] } {
  const shown: string[] = [];
  const hidden: string[] = [];
  for (const setting of kind.settings) ((mask & setting.bit) === setting.bit ? shown : hidden).push(setting.label);
  return { shown, hidden };
}

/** The owner's view of a system's privacy, as lines. */
export function systemPrivacyText(mask: number): string {
  const { shown, hidden } = privacySplit(mask, SYSTEM_PRIVACY);
  if (shown.length === 0) return 'Everything is private: others see only “A private system”. Show it with `/system privacy all:public`, or field by field.';
  if (hidden.length === 0) return 'Everything is public. Hide a part with `/system privacy`, e.g. `description:private`.';
  return `Others see: ${shown.join(', ')}.\nOnly you see: ${hidden.join(', ')}.\nChange with \`/system privacy\`.`;
}

/**
 * The owner's view of an alter's privacy, as lines. `systemShowsAlters` is the system's own
 * setting (undefined when unknown): without it no alter exists for others.
 */
export function alterPrivacyText(mask: number, username: string | null, systemShowsAlters?: boolean): string {
  const command = `/alter privacy alter:${username ?? '…'}`;
  const lines: string[] = [];
  const listed = (mask & AlterPrivacy.visible) === AlterPrivacy.visible;
  if (!listed) lines.push(`Private: others see nothing of this alter, not even that it exists. Show it with \`${command} all:public\`, or part by part.`);
  else {
    const { shown, hidden } = privacySplit(mask & ~AlterPrivacy.visible, {
      ...ALTER_PRIVACY,
      settings: ALTER_PRIVACY.settings.filter((s) => s.bit !== AlterPrivacy.visible),
    });
    lines.push(hidden.length === 0 ? 'Others see everything.' : `Others see: ${shown.length > 0 ? shown.join(', ') : 'only that it exists'}.\nOnly you see: ${hidden.join(', ')}.`);
    lines.push(`Change with \`${command}\`.`);
  }
  if (systemShowsAlters === false) lines.push('Your system hides its alter list, so others see none of your alters: `/system privacy alters:public`.');
  return lines.join('\n');
}
