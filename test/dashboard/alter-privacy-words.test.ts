// The alters screen's privacy words (dashboard/src/lib/alter-privacy-words.ts) keep copies of the
// service's privacy bits, since the dashboard is built from dashboard/ alone: this holds them to
// src/domain/privacy-bits.ts, and the levels to privacy.ts's rule (unlisted means nobody else sees it).
import { describe, expect, it } from 'vitest';
import {
  ALTER_ALL_PRIVATE,
  ALTER_ALL_PUBLIC,
  ALTER_LISTED_BIT,
  ALTER_PRIVACY_PARTS,
  SYSTEM_ALTERS_BIT,
  hiddenParts,
  privacyLevel,
} from '../../dashboard/src/lib/alter-privacy-words.js';
import { ALTER_PRIVACY_MASK, AlterPrivacy, SystemPrivacy } from '../../src/domain/privacy-bits.js';
import { ALTER_VISIBLE_BIT, alterExistsFor, type Viewer } from '../../src/domain/privacy.js';

describe('the alters screen’s privacy words', () => {
  it('name every alter privacy bit of the service, and only those', () => {
    expect(ALTER_PRIVACY_PARTS.map((part) => part.bit).sort((a, b) => a - b)).toEqual(Object.values(AlterPrivacy).sort((a, b) => a - b));
    expect(ALTER_ALL_PUBLIC).toBe(ALTER_PRIVACY_MASK);
    expect(ALTER_ALL_PRIVATE).toBe(0);
    expect(ALTER_LISTED_BIT).toBe(ALTER_VISIBLE_BIT);
    expect(SYSTEM_ALTERS_BIT).toBe(SystemPrivacy.alters);
  });

  it('call an alter private exactly when nobody else sees it, and public only when every part shows', () => {
    const stranger: Viewer = { userId: '1', clientId: 'c', systemId: null, scopes: new Set(['alters:read']) };
    const system = { id: 7, public: SystemPrivacy.alters };
    for (let bits = 0; bits <= ALTER_PRIVACY_MASK; bits++) {
      const level = privacyLevel(bits);
      expect(level === 'private', `bits ${bits}`).toBe(!alterExistsFor(bits, system, stranger));
      expect(level === 'public', `bits ${bits}`).toBe(bits === ALTER_PRIVACY_MASK);
    }
    expect(hiddenParts(ALTER_PRIVACY_MASK & ~AlterPrivacy.birthday & ~AlterPrivacy.description)).toEqual(['description', 'birthday']);
    expect(hiddenParts(ALTER_PRIVACY_MASK)).toEqual([]);
  });
});
