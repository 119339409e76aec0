// When a failed delivery is tried again: exponential backoff with jitter, for a bounded time after
// it was queued (a day by default), then it is given up.

export interface RetryPolicy {
  /** The first retry comes after about this long; each later one waits twice as long. */
  baseMs: number;
  /** No wait is longer than this. */
  maxMs: number;
  /** After this long since it was queued, a failing delivery is given up. */
  giveUpAfterMs: number;
}

/**
 * The wait after the `attempt`-th failed attempt (1-based): half the exponential step plus a random
 * part of the other half ("equal jitter"), so endpoints that failed together do not retry together
 * while the schedule still grows.
 */
export function retryDelay(attempt: number, policy: Pick<RetryPolicy, 'baseMs' | 'maxMs'>, random: () => number = Math.random): number {
  const step = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
  return Math.round(step / 2 + random() * (step / 2));
}

/** After a failed attempt: when to try again, or give up (the last try lands on the deadline). */
export function afterFailure(attempt: number, queuedAt: number, now: number, policy: RetryPolicy, random: () => number = Math.random): { status: 'pending'; at: number } | { status: 'failed' } {
  const deadline = queuedAt + policy.giveUpAfterMs;
  if (now >= deadline) return { status: 'failed' };
  return { status: 'pending', at: Math.min(now + retryDelay(attempt, policy, random), deadline) };
}
