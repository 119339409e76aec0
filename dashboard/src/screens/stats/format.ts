// How the statistics screen writes its numbers, the same in the charts and in the tables.
export function percent(share: number): string {
  return `${(share * 100).toFixed(1)} %`;
}
