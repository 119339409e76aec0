// The engine's contract (proxy-rules.md R1). The shapes are the specification's, key for key: the
// caller stores `state` as it is, so an extra key would leak into its writes.

export type Scope = 'channel' | 'server' | 'global';

export type Entry = {
  mode: 'off' | 'alter' | 'latch' | 'front';
  /** Read in `alter` mode. */
  alterId?: number;
  /** Read in `latch` mode. */
  latch?: { alterId: number; at: number } | null;
};

export type ProxyTag = { prefix: string; suffix: string };

export type ProxyAlter = {
  id: number;
  name: string;
  proxyTags: ProxyTag[];
  /**
   * false: `front` and `latch` autoproxy never send as this alter (PluralKit's per-member autoproxy
   * off); its tags and `alter` mode entries still do. Absent: true (an addition to the contract).
   */
  autoproxy?: boolean;
};

export type ProxySystem = {
  alters: ProxyAlter[];
  caseSensitive: boolean;
  keepProxy: boolean;
};

export type ProxyInput = {
  message: { content: string; hasAttachment: boolean };
  system: ProxySystem;
  autoproxy: {
    scopes: { channel?: Entry; server?: Entry; global?: Entry };
    /** 0 = the latch never expires. */
    latchExpirationMs: number;
    /** Alter id of the current first fronter. */
    front: number | null;
  };
  /** Epoch milliseconds, passed by the caller. */
  now: number;
};

/** Everything but the system, for callers that hold a compiled system (see `compileSystem`). */
export type DecisionInput = Omit<ProxyInput, 'system'>;

export type ProxyReason = 'tag' | 'autoproxy' | 'latch' | 'front';

export type ProxyResult =
  | { proxy: false }
  | { proxy: false; error: 'tooLong' }
  | { proxy: true; alterId: number; content: string; reason: ProxyReason };

export type StateChange =
  | null
  | { scope: Scope; latch: { alterId: number; at: number } }
  | { scope: Scope; latch: null }
  | { scope: Scope; mode: 'off' };

export type ProxyOutput = {
  result: ProxyResult;
  state: StateChange;
};
