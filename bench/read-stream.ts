// Reading alone (bytes to the parsed tree): the whole-file decode and JSON.parse of json.ts against
// the streaming reader (json-stream.ts) fed 64 KiB chunks, alternating, on the bench files of
// bench/import.ts. `node --import tsx bench/read-stream.ts`.
import { chunksOf, readJsonStream } from '../src/domain/import/json-stream.js';
import { decodeImportText, parseImportJson } from '../src/domain/import/json.js';
import { largePluralKitFile, largeSimplyPluralFile } from './import.js';

const files: Array<[string, Uint8Array]> = [
  ['simplyplural 2,000 members, 50,000 intervals', new TextEncoder().encode(largeSimplyPluralFile(2000, 100, 50_000))],
  ['pluralkit 2,000 members, 10,000 switches', new TextEncoder().encode(largePluralKitFile(2000, 10_000))],
];
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
for (const [name, bytes] of files) {
  const whole: number[] = [];
  const stream: number[] = [];
  for (let round = 0; round < 9; round++) {
    let started = performance.now();
    parseImportJson(decodeImportText(bytes));
    whole.push(performance.now() - started);
    started = performance.now();
    readJsonStream(chunksOf(bytes));
    stream.push(performance.now() - started);
  }
  console.log(`${name} (${(bytes.length / 2 ** 20).toFixed(2)} MiB), median of 9: whole ${median(whole).toFixed(0)} ms, streamed ${median(stream).toFixed(0)} ms`);
}
