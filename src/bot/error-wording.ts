// The service's errors in a command's own words. The service names its API fields (`avatarUrl:
// must be an absolute http:// or https:// URL`); a chat user typed an option (`avatar`). Each
// command declares which option stands for which API field, beside its option definitions, and
// this module turns every problem the service reported into a full sentence about that option.
import type { ServiceProblem } from './api-client.js';

/** API field (`avatarUrl`, `proxyTags.prefix`) → the option a user typed (`avatar`, `prefix`). */
export type FieldWords = Readonly<Record<string, string>>;

/** Builds a command's FieldWords from its `[option, apiField, …]` definitions. */
export function fieldWordsOf(definitions: ReadonlyArray<readonly [string, string, ...unknown[]]>): FieldWords {
  return Object.fromEntries(definitions.map(([option, field]) => [field, option]));
}

/** The option for a field path: exact, then without list positions (`proxyTags.0.prefix`), then its top-level field. */
function optionFor(field: string, words: FieldWords): string | undefined {
  const withoutIndexes = field
    .split('.')
    .filter((part) => !/^\d+$/.test(part))
    .join('.');
  return words[field] ?? words[withoutIndexes] ?? words[field.split('.')[0] ?? field];
}

/** `webhookAvatarUrl` → `webhook avatar URL`, for fields no option stands for. */
function spokenField(field: string): string {
  return field
    .split('.')
    .filter((part) => !/^\d+$/.test(part))
    .join(' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\burl\b/g, 'URL');
}

/** The service's wording where a chat user deserves plainer words. */
const PLAINER: ReadonlyArray<readonly [RegExp, string]> = [
  [/^must be an absolute http:\/\/ or https:\/\/ URL\b.*$/, 'must be a link starting with https:// (or http://)'],
  [/^must be a color like #a1b2c3$/, 'must be a color written like #a1b2c3 (a # and six digits or letters a–f)'],
  [/^must not be empty$/, 'cannot be empty'],
];

const PREDICATE = /^(must|is|are|cannot|can|has|have|names|needs|does)\b/;

const asSentence = (text: string) => {
  const trimmed = text.trim();
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
};

/** One full sentence for one problem, naming the option the user typed. */
export function problemSentence(problem: ServiceProblem, words: FieldWords): string {
  const field = problem.field;
  if (!field) return asSentence(problem.friendly);
  const option = optionFor(field, words);
  const prefix = `${field}: `;
  if (!problem.friendly.startsWith(prefix)) return asSentence(problem.friendly);
  const rest = problem.friendly.slice(prefix.length);
  // Most messages say what the field must be; some are a sentence of their own ("a proxy tag needs a prefix or a suffix").
  if (!PREDICATE.test(rest)) return asSentence(rest);
  const plain = PLAINER.find(([pattern]) => pattern.test(rest))?.[1] ?? rest;
  const subject = option ? option.replaceAll('-', ' ') : spokenField(field);
  return asSentence(`the ${subject} ${plain}`);
}

/** Every problem of an error body as sentences, one a line (at most `max`). */
export function problemSentences(problems: readonly ServiceProblem[], words: FieldWords, max = 5): string {
  const lines = problems.slice(0, max).map((problem) => problemSentence(problem, words));
  if (problems.length > max) lines.push(`(and ${problems.length - max} more)`);
  return lines.join('\n');
}
