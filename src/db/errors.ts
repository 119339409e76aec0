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

/**
 * The system-size trigger (migration 2026-11-27T10-system-size) refused a write that would grow a
 * system's alters past their cap: SQLite's RAISE and PostgreSQL's RAISE EXCEPTION both carry the
 * message.
 */
export function isSystemTooLarge(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.includes('system-too-large');
}

/** A foreign key refused the write (SQLite SQLITE_CONSTRAINT_FOREIGNKEY, PostgreSQL 23503). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}
