/** A rejection the reference service answers with a 4xx and an error body (message plus hints). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly hints: string[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
