// Whether a statement changes the schema: prepared statements made before it (SQLite's row
// shapes, PostgreSQL's named plans) must not be used after it. Both drivers ask the same question.
export function isSchemaChange(sql: string): boolean {
  return /^\s*(create|alter|drop)\s/i.test(sql);
}
