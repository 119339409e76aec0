// Peak memory of reading a file near the 32 MiB cap into the source model, each way in a fresh
// process: `whole` (the file's bytes held, decoded to one string, parsed to one tree: json.ts) and
// `streamed` (64 KiB chunks from the disk into json-stream.ts, as the import worker gets them from
// the request). `node --import tsx bench/read-memory.ts` (the file of bench/import.ts's
// measureLinearity: 2,000 members with all 100 values, 80,000 intervals, 25 MiB; a file of the
// same members with 40,000 chat messages, which no import reads, with `--chat`).
import { execFileSync } from 'node:child_process';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readImportFile } from '../src/domain/import/detect.js';
import { JsonStreamReader } from '../src/domain/import/json-stream.js';
import { decodeImportText, parseImportJson } from '../src/domain/import/json.js';
import { readImportStream } from '../src/domain/import/read-bytes.js';
import { largeSimplyPluralFile } from './import.js';

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

async function measure(mode: string, path: string): Promise<void> {
  const before = process.memoryUsage().rss;
  const started = performance.now();
  let source;
  if (mode === 'whole') {
    source = readImportFile(parseImportJson(decodeImportText(readFileSync(path))));
  } else {
    const reader = new JsonStreamReader();
    for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 })) reader.push(chunk as Buffer);
    source = readImportStream(reader);
  }
  const seconds = (performance.now() - started) / 1000;
  // maxRSS is in KiB.
  console.log(`${mode.padEnd(8)} ${seconds.toFixed(2)} s, peak resident ${mib(process.resourceUsage().maxRSS * 1024)} MB (${mib(before)} MB before reading), ${source.alters.length} alters, ${source.switches.length} switches`);
}

const [mode, path] = process.argv.slice(2);
if (mode === 'whole' || mode === 'streamed') {
  await measure(mode, path as string);
} else {
  const chat = process.argv.includes('--chat');
  let text = largeSimplyPluralFile(2000, 100, chat ? 20_000 : 80_000, 100);
  if (chat) {
    const messages = Array.from({ length: 40_000 }, (_, i) => ({ _id: `m${i}`, channel: 'c1', writer: 'a0', writtenAt: i, message: 'x'.repeat(300), iv: 'iv' }));
    text = `${text.slice(0, -1)},"chatMessages":${JSON.stringify(messages)}}`;
  }
  const file = join(tmpdir(), `read-memory-${process.pid}.json`);
  writeFileSync(file, text);
  console.log(`${mib(text.length)} MiB${chat ? ' (with chat messages)' : ''}, each way in a fresh process, twice:`);
  const self = fileURLToPath(import.meta.url);
  for (let round = 0; round < 2; round++) {
    for (const way of ['whole', 'streamed']) process.stdout.write(execFileSync(process.execPath, ['--import', 'tsx', self, way, file], { encoding: 'utf8' }));
  }
}
