// The few places where the two databases differ in what they report.

/** A unique index refused the write (SQLite SQLITE_CONSTRAINT_UNIQUE, PostgreSQL 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/** Which unique index refused the write, when the driver says. */
export function violatedConstraint(error: unknown): string | undefined {
  const e = error as { constraint?: unknown; message?: unknown } | null;
  if (typeof e?.constraint === 'string') return e.constraint;
  return typeof e?.message === 'string' ? e.message : undefined;
}

/** A foreign key refused the write (SQLite SQLITE_CONSTRAINT_FOREIGNKEY, PostgreSQL 23503). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}
