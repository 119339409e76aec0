// Request bodies are read as UTF-8, the only encoding JSON may use between systems (RFC 8259 §8.1)
// and the one OAuth's form bodies use (RFC 6749 Appendix B). A body whose Content-Type names
// another charset would be misread, so it is refused (415) instead.

/** True when `contentType` names no charset, or UTF-8. */
export function isUtf8ContentType(contentType: string | undefined): boolean {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  if (!match) return true;
  const charset = (match[1] ?? match[2] ?? '').trim();
  return /^utf-?8$/i.test(charset);
}
