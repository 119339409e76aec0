// The fill of each alter's bars: the alter's own colour where it has one, else one of a fixed set
// of distinct hues. Only bars are filled with them; every number is also text in the page's own
// colours (and in the table beside each chart), so no reading depends on a member's colour.
const FALLBACK = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

export function barColour(alterColour: string | null | undefined, index: number): string {
  return alterColour && /^#[0-9a-fA-F]{6}$/.test(alterColour) ? alterColour : (FALLBACK[index % FALLBACK.length] as string);
}
