// A proxy between the bot and the service that can misbehave on demand: pass requests through,
// refuse connections, hang, or answer 5xx. Tests use it to show the bot survives a sick service.
// One mode for every request; scripted-proxy.ts (which this builds on) decides per request.
import { always, startScriptedProxy } from './scripted-proxy.js';

export type ProxyMode = 'pass' | 'reset' | 'hang' | 'error-500';

export interface FaultyProxy {
  url: string;
  target: string;
  mode: ProxyMode;
  /** The requests seen since the mode was last set (setting it, even to the same mode, starts afresh). */
  readonly log: ReadonlyArray<{ method: string; path: string }>;
  close(): Promise<void>;
}

export async function startFaultyProxy(): Promise<FaultyProxy> {
  const proxy = await startScriptedProxy('');
  let mode: ProxyMode = 'pass';
  return {
    url: proxy.url,
    get target() {
      return proxy.target;
    },
    set target(value: string) {
      proxy.target = value;
    },
    get mode() {
      return mode;
    },
    set mode(value: ProxyMode) {
      mode = value;
      proxy.play(always(value));
    },
    get log() {
      return proxy.log;
    },
    close: () => proxy.close(),
  };
}
