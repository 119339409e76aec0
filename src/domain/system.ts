// A system (one Discord user's profile record that owns alters): the shape the API returns, the
// body that edits it, and the limits on each field.
import { z } from 'zod';
import { Autoproxy, type AutoproxyRecord } from './autoproxy.js';
import { SYSTEM_FLAGS_MASK, SYSTEM_PRIVACY_MASK } from './privacy-bits.js';
import { GuildId, HttpUrl, IsoDateTime, bitmask, perServerMap, readOnly, text } from './values.js';

export const MAX_LATCH_EXPIRATION_MS = 36_000_000;
export const DEFAULT_NICKNAME_FORMAT = '@%username%';


const editable = {
  systemName: text(100, 1),
  systemDisplayTag: text(100).nullable().describe('Appended to proxied names.'),
  displayTagMap: perServerMap(text(100)).describe('Server id → display tag used in that server.'),
  systemDescription: text(1000).nullable(),
  systemAvatar: HttpUrl.nullable(),
  systemBanner: HttpUrl.nullable(),
  systemPronouns: text(100).nullable(),
  nicknameFormat: text(100, 1).describe('Nickname template for nickname mode: %username% and %display% are replaced; cut to 32 characters.'),
  systemOperationDM: z.boolean().describe('Whether the owner is sent a direct message about changes.'),
  latchExpiration: z
    .number()
    .int('must be a whole number of milliseconds')
    .min(0, 'must not be negative')
    .max(MAX_LATCH_EXPIRATION_MS, `must be at most ${MAX_LATCH_EXPIRATION_MS} (10 hours)`)
    .describe('Milliseconds after which a latch expires; 0 means never.'),
  public: bitmask(SYSTEM_PRIVACY_MASK, 'the system privacy settings').describe('Privacy bitmask; see the privacy section of the API reference.'),
  flags: bitmask(SYSTEM_FLAGS_MASK, 'the system flags').describe('1: keep proxy tags in the sent text; 2: append pronouns to the proxied name; 4: proxy tags match without regard to case.'),
  disabledGuilds: z
    .array(GuildId)
    .max(200, 'must have at most 200 servers')
    .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a server'),
  disabled: z.boolean().describe('When true the system proxies nowhere.'),
};

export const EditSystemBody = z.strictObject({
  ...z.strictObject(editable).partial().shape,
  associatedUserId: readOnly('associatedUserId'),
  alterIds: readOnly('alterIds'),
  tagIds: readOnly('tagIds'),
  createdAt: readOnly('createdAt'),
  systemAutoproxy: readOnly('systemAutoproxy'),
  subAccounts: readOnly('subAccounts'),
});
export type EditSystemInput = z.infer<typeof EditSystemBody>;

/**
 * The system as the API returns it. Every field is always present; fields withheld from the viewer
 * are null (or empty) and named in `redacted`.
 */
export const System = z
  .strictObject({
    associatedUserId: z.string(),
    systemName: z.string().nullable(),
    systemDisplayTag: z.string().nullable(),
    displayTagMap: z.record(z.string(), z.string()),
    systemDescription: z.string().nullable(),
    systemAvatar: z.string().nullable(),
    systemBanner: z.string().nullable(),
    systemPronouns: z.string().nullable(),
    nicknameFormat: z.string().nullable(),
    alterIds: z.array(z.number().int()).describe('For other viewers: only alters they may see, and only when the system shows its alters.'),
    tagIds: z.array(z.number().int()),
    createdAt: IsoDateTime,
    systemAutoproxy: z.array(Autoproxy),
    systemOperationDM: z.boolean().nullable(),
    latchExpiration: z.number().int().nullable(),
    public: z.number().int(),
    flags: z.number().int().nullable(),
    disabledGuilds: z.array(z.string()),
    subAccounts: z.array(z.string()),
    disabled: z.boolean(),
    redacted: z.array(z.string()).describe('Fields withheld from this viewer by the system’s privacy settings (an addition to the origin API).'),
  })
  .meta({ id: 'System' });
export type System = z.infer<typeof System>;

/** A system as stored, before privacy is applied. */
export interface SystemRecord {
  id: number;
  userId: string;
  name: string;
  displayTag: string | null;
  displayTagMap: Record<string, string>;
  description: string | null;
  avatar: string | null;
  banner: string | null;
  pronouns: string | null;
  nicknameFormat: string;
  operationDm: boolean;
  latchExpiration: number;
  public: number;
  flags: number;
  disabledGuilds: string[];
  disabled: boolean;
  createdAt: number;
  /** Changes with every write that changes the proxy profile. */
  revision: number;
}

/** What a full system read needs beyond the row; loaded according to the privacy policy. */
export interface SystemDetails {
  alterIds: number[];
  tagIds: number[];
  autoproxy: AutoproxyRecord[];
  subAccounts: string[];
}
