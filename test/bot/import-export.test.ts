// /import and /export end to end: the real service, the real bot (discord.js) and the fake
// Discord, which serves the uploaded files the way Discord's CDN does. A file goes in as an
// attachment or a pasted link, comes back as a private preview, and only Confirm writes; a double
// press, or a press after a lost answer, imports once.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageFlags } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_MAX_BYTES } from '../../src/bot/imports/import-session.js';
import type { Alter } from '../../src/domain/alter.js';
import { signIn } from '../support/api.js';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { DIALECTS } from '../support/dialects.js';
import { resolvedAttachments, user, type ApiMessage, type InteractionHandle, type RecordedResponse } from '../support/fake-discord.js';
import { startScriptedProxy, type ScriptedProxy } from '../support/scripted-proxy.js';
import { SAMPLES } from '../support/samples.js';

const ALICE = user('420000000000000001', 'alice');
const BOB = user('420000000000000002', 'bob');
const CAROL = user('420000000000000003', 'carol');
const DAVE = user('420000000000000004', 'dave');
const ERIN = user('420000000000000005', 'erin');
const FRANK = user('420000000000000006', 'frank');
const GRACE = user('420000000000000007', 'grace');
const HEIDI = user('420000000000000008', 'heidi');
const IVAN = user('420000000000000009', 'ivan');
const JUDY = user('420000000000000010', 'judy');
const KARL = user('420000000000000011', 'karl');
const LEO = user('420000000000000012', 'leo');

/** The shared sample exports (import-formats.md, section 5), as the service's own tests read them. */

type Json = Record<string, unknown>;
const embedsOf = (response: RecordedResponse) =>
  (response.body.embeds ?? []) as Array<{ title?: string; description?: string; fields?: Array<{ name: string; value: string }> }>;
const buttonsOf = (response: RecordedResponse) => ((response.body.components ?? []) as Array<{ components: Json[] }>).flatMap((row) => row.components);
const titled = (prefix: string) => (response: RecordedResponse) => embedsOf(response)[0]?.title?.startsWith(prefix) === true;
const contentMatches = (pattern: RegExp) => (response: RecordedResponse) => pattern.test(String(response.body.content ?? ''));

const HID = 'abcefghjknoprstuvwxyz';
/** A PluralKit v2 export of members with these names (short ids derived from the index). */
function pluralKitFile(names: string[]): Buffer {
  const hid = (i: number) => `m${HID[Math.floor(i / HID.length) % HID.length]}${HID[i % HID.length]}aaa`;
  return Buffer.from(
    JSON.stringify({
      version: 2,
      id: 'sysabc',
      name: 'Imported crew',
      description: null,
      tag: null,
      switches: [],
      groups: [],
      members: names.map((name, i) => ({
        id: hid(i),
        name,
        display_name: null,
        color: 'ff8800',
        description: `About ${name}`,
        pronouns: 'they/them',
        proxy_tags: [{ prefix: `${name.toLowerCase()}:`, suffix: null }],
        keep_proxy: false,
        created: '2024-01-02T03:04:05Z',
        privacy: { visibility: 'public', name_privacy: 'public', description_privacy: 'public', avatar_privacy: 'public', pronoun_privacy: 'public', metadata_privacy: 'public' },
      })),
    }),
  );
}

describe.each(DIALECTS)('/import and /export through the bot (%s)', (dialect) => {
  let h: BotHarness;

  beforeAll(async () => {
    h = await startBotHarness({ dialect });
    for (const who of [ALICE, BOB, CAROL, DAVE, ERIN, GRACE, HEIDI, JUDY, KARL, LEO]) await h.link(who.id);
  });
  afterAll(async () => h?.stop());

  const altersOf = (userId: string): Promise<Alter[]> =>
    h.bot.context.accounts.withToken(userId, (token) => h.bot.context.api.listAlters(token, '@me', { skip: 0, max: 250 }));

  /** Runs /import with a file as its attachment; the handle and the first answer `until` accepts. */
  function importFile(who: typeof ALICE, file: Buffer, until: (response: RecordedResponse) => boolean, options: Json[] = []) {
    const attachment = h.fake.uploadAttachment({ filename: 'system.json', data: file });
    const payload = h.fake.slashCommand({ name: 'import', user: who, options: [{ type: 11, name: 'file', value: attachment.id }, ...options], resolved: resolvedAttachments([attachment]) });
    return h.run(payload, until, 20_000);
  }

  function importLink(who: typeof ALICE, link: string, until: (response: RecordedResponse) => boolean) {
    return h.run(h.fake.slashCommand({ name: 'import', user: who, options: [{ type: 3, name: 'link', value: link }] }), until, 20_000);
  }

  /**
   * Presses a button of the preview `on` shows (or showed: a stale copy of the message stands for a
   * late or retried press); the press's handle and its first answer `until` accepts.
   */
  function press(on: InteractionHandle | ApiMessage, which: 'confirm' | 'cancel', who: typeof ALICE, until: (response: RecordedResponse) => boolean) {
    const message = typeof (on as InteractionHandle).latestMessage === 'function' ? (on as InteractionHandle).latestMessage() : (on as ApiMessage);
    if (!message) throw new Error('no preview message');
    const button = (message.components as Array<{ components: Json[] }>).flatMap((row) => row.components).find((c) => String(c.custom_id).startsWith(`import:${which}:`));
    if (!button) throw new Error(`no ${which} button on the preview`);
    return h.run(h.fake.button({ customId: String(button.custom_id), user: who, message }), until, 20_000);
  }

  it('imports an attached file: a private preview, nothing written until Confirm, then the report; the alters exist', async () => {
    const { handle, response: preview } = await importFile(ALICE, pluralKitFile(['Ren', 'Mina', 'Luna']), titled('Import preview'));
    expect(handle.responses[0]?.body.flags).toBe(MessageFlags.Ephemeral);
    expect(handle.responses.map((r) => String(r.body.content ?? ''))).toEqual(expect.arrayContaining(['Downloading the file…', 'Checking 3 alters…']));
    expect(embedsOf(preview)[0]?.title).toBe('Import preview: PluralKit');
    expect(embedsOf(preview)[0]?.fields?.find((f) => f.name === 'Alters')?.value).toMatch(/^3 new/);
    expect(String(preview.body.content)).toMatch(/Nothing is imported until you press \*\*Confirm\*\*/);
    expect(buttonsOf(preview).map((b) => b.label)).toEqual(['Confirm', 'Cancel']);
    expect(await altersOf(ALICE.id)).toEqual([]);
    const shown = handle.latestMessage();
    if (!shown) throw new Error('no preview');

    const { handle: pressed, response: started } = await press(handle, 'confirm', ALICE, (r) => r.kind === 'callback');
    expect(started.callbackType).toBe(7);
    expect(started.body).toMatchObject({ content: 'Importing 3 alters…', components: [] });
    const done = await pressed.waitForResponse(titled('Imported from'), 20_000);
    expect(embedsOf(done)[0]?.title).toBe('Imported from PluralKit');
    expect(buttonsOf(done)).toEqual([]);
    const alters = await altersOf(ALICE.id);
    expect(alters.map((a) => a.displayName).sort()).toEqual(['Luna', 'Mina', 'Ren']);
    expect(alters.find((a) => a.displayName === 'Ren')).toMatchObject({ color: '#FF8800', pronouns: 'they/them', description: 'About Ren' });

    // A later press of the same preview (a retried interaction) shows what was done, and does nothing again.
    const { response: again } = await press(shown, 'confirm', ALICE, (r) => r.kind === 'callback');
    expect(String(again.body.content)).toMatch(/Already imported/);
    expect(await altersOf(ALICE.id)).toHaveLength(3);
  });

  it('imports the PluralKit sample with its front history, and the Tupperbox sample from a pasted link', async () => {
    const pk = readFileSync(`${SAMPLES}/pluralkit-v2.json`);
    const { handle, response: preview } = await importFile(GRACE, pk, titled('Import preview'), [{ type: 5, name: 'history', value: true }]);
    const fields = embedsOf(preview)[0]?.fields ?? [];
    expect(fields.find((f) => f.name === 'Alters')?.value).toMatch(/^5 new/);
    expect(fields.find((f) => f.name === 'Tags')?.value).toMatch(/^2 new/);
    expect(fields.find((f) => f.name === 'Front history')?.value).toMatch(/^4 new switches/);
    const { handle: pressed } = await press(handle, 'confirm', GRACE, (r) => r.kind === 'callback');
    await pressed.waitForResponse(titled('Imported from PluralKit'), 20_000);
    expect(await altersOf(GRACE.id)).toHaveLength(5);

    const tb = h.fake.uploadAttachment({ filename: 'tuppers.json', data: readFileSync(`${SAMPLES}/tupperbox.json`) });
    const { handle: tbHandle, response: tbPreview } = await importLink(HEIDI, String(tb.url), titled('Import preview'));
    expect(embedsOf(tbPreview)[0]?.title).toBe('Import preview: Tupperbox');
    expect(embedsOf(tbPreview)[0]?.fields?.find((f) => f.name === 'Alters')?.value).toMatch(/^6 new/);
    expect(embedsOf(tbPreview)[0]?.fields?.some((f) => f.name.startsWith('Warnings'))).toBe(true);
    const { handle: tbPressed } = await press(tbHandle, 'confirm', HEIDI, (r) => r.kind === 'callback');
    await tbPressed.waitForResponse(titled('Imported from Tupperbox'), 20_000);
    expect(await altersOf(HEIDI.id)).toHaveLength(6);
  });

  it('imports a Simply Plural export with its front history: the preview names the format and what is not imported', async () => {
    const sp = readFileSync(`${SAMPLES}/simply-plural.json`);
    const { handle, response: preview } = await importFile(KARL, sp, titled('Import preview'), [{ type: 5, name: 'history', value: true }]);
    const embed = embedsOf(preview)[0];
    expect(embed?.title).toBe('Import preview: Simply Plural');
    expect(embed?.fields?.find((f) => f.name === 'Alters')?.value).toMatch(/^8 new/);
    expect(embed?.fields?.find((f) => f.name === 'Front history')?.value).toMatch(/^10 new switches/);
    expect(embed?.fields?.find((f) => f.name === 'Not imported')?.value).toMatch(/customFields: 5/);
    expect(await altersOf(KARL.id)).toEqual([]);
    const { handle: pressed } = await press(handle, 'confirm', KARL, (r) => r.kind === 'callback');
    await pressed.waitForResponse(titled('Imported from Simply Plural'), 20_000);
    expect((await altersOf(KARL.id)).map((alter) => alter.displayName)).toEqual(['Ash', 'Bea', 'Cy Brightwater', 'Dee ✨', 'Eli', 'Fox', 'Foggy', 'Resting']);
  });

  it('passes the Simply Plural choices: custom fronts left out, what friends saw public', async () => {
    const sp = readFileSync(`${SAMPLES}/simply-plural.json`);
    const options = [{ type: 3, name: 'custom-fronts', value: 'skip' }, { type: 5, name: 'friends-public', value: true }];
    const { handle, response: preview } = await importFile(LEO, sp, titled('Import preview'), options);
    expect(embedsOf(preview)[0]?.fields?.find((f) => f.name === 'Alters')?.value).toMatch(/^6 new/);
    expect(embedsOf(preview)[0]?.fields?.find((f) => f.name === 'Not imported')?.value).toMatch(/customFronts: 2/);
    const { handle: pressed } = await press(handle, 'confirm', LEO, (r) => r.kind === 'callback');
    await pressed.waitForResponse(titled('Imported from Simply Plural'), 20_000);
    const alters = await altersOf(LEO.id);
    expect(alters.filter((alter) => alter.public !== 0).map((alter) => alter.displayName)).toEqual(['Ash', 'Cy Brightwater', 'Eli', 'Fox']);
  });

  it('imports once when Confirm is pressed twice at the same time (mode add, where a second import would duplicate)', async () => {
    const { handle } = await importFile(BOB, pluralKitFile(['Ash', 'Birch']), titled('Import preview'), [{ type: 3, name: 'mode', value: 'add' }]);
    const message = handle.latestMessage();
    if (!message) throw new Error('no preview');
    const confirmId = String(buttonsOf({ body: message } as unknown as RecordedResponse).find((b) => String(b.custom_id).startsWith('import:confirm:'))?.custom_id);
    const presses = [
      h.fake.dispatchInteraction(h.fake.button({ customId: confirmId, user: BOB, message })),
      h.fake.dispatchInteraction(h.fake.button({ customId: confirmId, user: BOB, message })),
    ];
    const answers = await Promise.all(presses.map((p) => p.waitForResponse((r) => r.kind === 'callback', 20_000)));
    const texts = answers.map((a) => String(a.body.content));
    expect(texts.filter((t) => t.startsWith('Importing'))).toHaveLength(1);
    expect(texts.filter((t) => /already running|Already imported/.test(t))).toHaveLength(1);
    const importing = presses[texts.findIndex((t) => t.startsWith('Importing'))];
    await importing?.waitForResponse(titled('Imported from'), 20_000);
    expect((await altersOf(BOB.id)).map((a) => a.displayName).sort()).toEqual(['Ash', 'Birch']);
  });

  describe('with a slow or lossy connection to the service', () => {
    let scripted: ScriptedProxy;
    afterEach(async () => {
      h.proxy.target = h.server.address;
      await scripted?.close();
    });

    it('lets the user press Confirm again, and the service does not apply the same preview twice', async () => {
      scripted = await startScriptedProxy(h.server.address);
      h.proxy.target = scripted.url;
      let lost = false;
      scripted.play(({ path }) => {
        if (lost || !path.includes('/system/import') || !path.includes('dryRun=false')) return 'pass';
        lost = true;
        return 'lose-answer';
      });
      const { handle } = await importFile(CAROL, pluralKitFile(['Kite', 'Wren']), titled('Import preview'), [{ type: 3, name: 'mode', value: 'add' }]);
      const { handle: first } = await press(handle, 'confirm', CAROL, (r) => r.kind === 'callback');
      const failed = await first.waitForResponse(contentMatches(/Press \*\*Confirm\*\* to try again/), 20_000);
      expect(String(failed.body.content)).toMatch(/cannot be reached/);
      expect(buttonsOf(failed).map((b) => b.label)).toEqual(['Confirm', 'Cancel']);
      // The import did land: the answer was lost on the way back.
      expect(await altersOf(CAROL.id)).toHaveLength(2);

      const { handle: second } = await press(handle, 'confirm', CAROL, (r) => r.kind === 'callback');
      const done = await second.waitForResponse(titled('Imported from'), 20_000);
      expect(embedsOf(done)[0]?.fields?.find((f) => f.name === 'Alters')?.value).toMatch(/^2 new/);
      expect(await altersOf(CAROL.id)).toHaveLength(2);
      expect(scripted.log.filter((r) => r.path.includes('dryRun=false')).map((r) => r.action)).toEqual(['lose-answer', 'pass']);
    });

    it('says every few seconds that a long step is still running', async () => {
      scripted = await startScriptedProxy(h.server.address);
      h.proxy.target = scripted.url;
      scripted.play(({ path }) => (path.includes('/system/import') ? { delayMs: 5600, then: 'pass' } : 'pass'));
      const { handle } = await importFile(ERIN, pluralKitFile(['Slow']), titled('Import preview'));
      expect(handle.responses.map((r) => String(r.body.content ?? ''))).toEqual(expect.arrayContaining(['Checking 1 alter…', 'Checking 1 alter… (5 s)']));
    });
  });

  it('lets nobody else press Confirm or Cancel; Cancel writes nothing and drops the preview', async () => {
    const { handle } = await importFile(DAVE, pluralKitFile(['Oak']), titled('Import preview'));
    const preview = handle.latestMessage();
    if (!preview) throw new Error('no preview');
    const { response: refused } = await press(handle, 'confirm', ALICE, (r) => r.kind === 'callback');
    expect(refused).toMatchObject({ callbackType: 4, body: { content: 'Only the person who ran `/import` can confirm it.', flags: MessageFlags.Ephemeral } });
    const { response: notCancelled } = await press(handle, 'cancel', ALICE, (r) => r.kind === 'callback');
    expect(String(notCancelled.body.content)).toMatch(/Only the person who ran `\/import` can cancel it/);
    expect(await altersOf(DAVE.id)).toEqual([]);

    const { response: cancelled } = await press(handle, 'cancel', DAVE, (r) => r.kind === 'callback');
    expect(cancelled).toMatchObject({ callbackType: 7, body: { content: 'Import cancelled: nothing was changed.', components: [], embeds: [] } });
    const { response: late } = await press(preview, 'confirm', DAVE, (r) => r.kind === 'callback');
    expect(String(late.body.content)).toMatch(/expired/);
    expect(await altersOf(DAVE.id)).toEqual([]);
  });

  it('accepts a pasted link to a Discord attachment, with or without <>', async () => {
    const attachment = h.fake.uploadAttachment({ filename: 'system.json', data: pluralKitFile(['Fern']) });
    const { response } = await importLink(ERIN, `<${String(attachment.url)}>`, titled('Import preview'));
    expect(embedsOf(response)[0]?.fields?.find((f) => f.name === 'Alters')?.value).toMatch(/^1 new/);
  });

  describe('refusals', () => {
    let elsewhere: Server;
    let hits = 0;
    beforeAll(async () => {
      elsewhere = createServer((_req, res) => {
        hits += 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end(pluralKitFile(['Sneaky']));
      });
      await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      elsewhere.closeAllConnections();
      await new Promise((resolve) => elsewhere.close(resolve));
    });

    it('refuses a link to anywhere but Discord’s CDN without fetching it', async () => {
      const port = (elsewhere.address() as AddressInfo).port;
      for (const link of [`http://127.0.0.1:${port}/attachments/1/2/system.json`, 'https://example.com/system.json', 'http://169.254.169.254/latest/meta-data/']) {
        const { response } = await importLink(ERIN, link, contentMatches(/./));
        expect(response.body.flags).toBe(MessageFlags.Ephemeral);
        expect(String(response.body.content)).toMatch(/Only links to files uploaded to Discord/);
      }
      expect(hits).toBe(0);
    });

    it('refuses a file over the cap: an attachment before downloading it, a link while downloading', async () => {
      const big = Buffer.alloc(IMPORT_MAX_BYTES + 1, 0x20);
      const attachment = h.fake.uploadAttachment({ filename: 'huge.json', data: big });
      const downloads = () => h.fake.requests.filter((r) => r.path.includes(`/${String(attachment.id)}/`)).length;
      const viaFile = h.fake.slashCommand({ name: 'import', user: ERIN, options: [{ type: 11, name: 'file', value: attachment.id }], resolved: resolvedAttachments([attachment]) });
      const { response } = await h.run(viaFile, contentMatches(/./));
      expect(String(response.body.content)).toMatch(/too big to import: at most 32 MiB/);
      expect(downloads()).toBe(0);
      const { response: viaLink } = await importLink(ERIN, String(attachment.url), contentMatches(/too big/));
      expect(String(viaLink.body.content)).toMatch(/too big to import/);
    });

    it('explains a broken file in a sentence and writes nothing', async () => {
      const before = (await altersOf(ERIN.id)).length;
      const { response: notJson } = await importFile(ERIN, Buffer.from('{"members": [ oops'), contentMatches(/cannot be imported/));
      expect(String(notJson.body.content)).toMatch(/^That file cannot be imported: .+/);
      expect(buttonsOf(notJson)).toEqual([]);
      const { response: unknown } = await importFile(ERIN, Buffer.from('{"hello": "world"}'), contentMatches(/cannot be imported/));
      expect(String(unknown.body.content)).toMatch(/^That file cannot be imported: .+/);
      expect((await altersOf(ERIN.id)).length).toBe(before);
    });

    it('asks a member whose link lacks the import scopes to link again', async () => {
      const narrow = await signIn(h.server, IVAN.id, { scope: 'openid offline_access alters:read alters:write system:read' });
      await h.bot.context.accounts.save(IVAN.id, { accessToken: narrow.token, refreshToken: narrow.refreshToken, expiresAt: Date.now() + 3_600_000, scope: 'alters:read alters:write system:read', linkedAt: Date.now() });
      const { response } = await importFile(IVAN, pluralKitFile(['Quill']), contentMatches(/link/));
      expect(String(response.body.content)).toMatch(/run `\/link` again/);
      expect(buttonsOf(response).map((b) => b.label)).toEqual(['Link again']);
      expect(await altersOf(IVAN.id)).toEqual([]);
    });

    it('wants exactly one of file and link', async () => {
      const { response: neither } = await h.run(h.fake.slashCommand({ name: 'import', user: ERIN }), contentMatches(/./));
      expect(String(neither.body.content)).toMatch(/either as `file`.*or as `link`/);
    });

    it('asks someone who never linked to link first, before downloading anything', async () => {
      const attachment = h.fake.uploadAttachment({ filename: 'system.json', data: pluralKitFile(['Nobody']) });
      const { response } = await importLink(FRANK, String(attachment.url), contentMatches(/./));
      expect(String(response.body.content)).toMatch(/Link your Discord account/);
      expect(h.fake.requests.filter((r) => r.path.includes(`/${String(attachment.id)}/`))).toHaveLength(0);
    });
  });

  it('/export sends the system privately as a file that parses and holds the alters', async () => {
    const { handle, response } = await h.run(h.fake.slashCommand({ name: 'export', user: ALICE }), (r) => r.files.length > 0, 20_000);
    // Private: the first answer (the reply, or the deferral) carried the ephemeral flag.
    expect(handle.responses[0]?.body.flags).toBe(MessageFlags.Ephemeral);
    expect(handle.latestMessage()?.flags).toBe(MessageFlags.Ephemeral);
    expect(response.files).toHaveLength(1);
    expect(response.files[0]?.filename).toMatch(/^switchboard-system-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(response.files[0]?.data.toString('utf8') ?? '') as { version: number; members: Array<{ name: string; display_name: string | null }>; switches: unknown[] };
    expect(exported.version).toBe(2);
    expect(exported.switches).toEqual(expect.any(Array));
    expect(exported.members.map((m) => m.display_name ?? m.name).sort()).toEqual(['Luna', 'Mina', 'Ren']);
    expect(String(response.body.content)).toMatch(/3 alters/);
  });

  it('takes back what /export sent (after Alice’s import above): the file imports into another system with the same alters', async () => {
    const { response } = await h.run(h.fake.slashCommand({ name: 'export', user: ALICE }), (r) => r.files.length > 0, 20_000);
    const file = response.files[0]?.data;
    if (!file) throw new Error('no file');
    const { handle } = await importFile(JUDY, file, titled('Import preview'));
    const { handle: pressed } = await press(handle, 'confirm', JUDY, (r) => r.kind === 'callback');
    await pressed.waitForResponse(titled('Imported from'), 20_000);
    // Tag ids are made fresh by every import; the rest comes back as it was.
    const fields = (alter: Alter) => [
      alter.username,
      alter.displayName,
      alter.color,
      alter.pronouns,
      alter.description,
      alter.public,
      alter.proxyTags.map((t) => [t.prefix, t.suffix]),
    ];
    const original = (await altersOf(ALICE.id)).map(fields).sort();
    expect(original).toHaveLength(3);
    expect((await altersOf(JUDY.id)).map(fields).sort()).toEqual(original);
  });

  it('says so when the export is larger than Discord lets the bot upload there', async () => {
    h.fake.setUploadLimit(200);
    try {
      const { response } = await h.run(h.fake.slashCommand({ name: 'export', user: ALICE }), contentMatches(/./), 20_000);
      expect(response.files).toEqual([]);
      expect(String(response.body.content)).toMatch(/more than Discord lets the bot send here \(1 KiB\).*GET \/v1\/users\/@me\/system\/export/);
    } finally {
      h.fake.setUploadLimit(10 * 1024 * 1024);
    }
  });
});
