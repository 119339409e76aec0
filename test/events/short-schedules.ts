// The service's event settings for the event tests: delivery to the loopback receiver allowed, and
// schedules short enough that retries and giving up happen within a test.
export const EVENT_ENV = {
  RATE_LIMIT_ENABLED: 'false',
  EVENTS_ALLOW_PRIVATE_ADDRESSES: 'true',
  EVENTS_RETRY_BASE_MS: '40',
  EVENTS_RETRY_MAX_MS: '160',
  EVENTS_POLL_INTERVAL_MS: '50',
  EVENTS_DELIVERY_TIMEOUT_MS: '400',
  EVENTS_GIVE_UP_AFTER_MS: '2500',
} as const;
