/** A problem with how the tool was called or what it was given: one line on stderr, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
