// A file read for an import, wherever it is held: in this thread (the command line, tests) or in
// the service's import worker (src/workers/). The import needs its origin, to load the links of
// earlier imports from the same source, and a way to plan it against the system.
import type { ImportReport, ImportSource, ImportSourceKind } from './model.js';
import { planImport, type ImportOptions, type ImportPlan, type ImportTarget } from './plan.js';

export interface ImportFile {
  source: ImportSourceKind;
  sourceSystemId: string;
  plan(target: ImportTarget, options: Omit<ImportOptions, 'newProxyTagId'>): Promise<ImportPlan>;
  /** The plan's report alone (a preview needs no more). */
  report(target: ImportTarget, options: Omit<ImportOptions, 'newProxyTagId'>): Promise<ImportReport>;
}

/** A file read in this thread; `newProxyTagId` makes the ids of new proxy tags. */
export function importFileHere(source: ImportSource, newProxyTagId: () => string): ImportFile {
  const plan = async (target: ImportTarget, options: Omit<ImportOptions, 'newProxyTagId'>) => planImport(source, target, { ...options, newProxyTagId });
  return { source: source.source, sourceSystemId: source.sourceSystemId, plan, report: async (target, options) => (await plan(target, options)).report };
}
