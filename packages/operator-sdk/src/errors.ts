/** A non-2xx answer of the service, or a request that got no answer. */
export class OperatorApiError extends Error {
  override readonly name = 'OperatorApiError';
  constructor(
    message: string,
    readonly details: {
      method: string;
      path: string;
      /** The HTTP status; undefined when no answer arrived (network error, timeout). */
      status?: number;
      /** The service's `detail` (a string, or the 422 list of `{loc, msg, type}`). */
      detail?: unknown;
      /** The parsed error body. */
      body?: unknown;
      /** The request id (`x-request-id`) of the call, the same on every attempt. */
      requestId: string;
      /** How many attempts were made. */
      attempts: number;
      /** The underlying network error, when there was no answer. */
      cause?: unknown;
    },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }
  get status(): number | undefined {
    return this.details.status;
  }
  get detail(): unknown {
    return this.details.detail;
  }
  get requestId(): string {
    return this.details.requestId;
  }
}
