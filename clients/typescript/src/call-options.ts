/** What every call of the client takes, and what one gives back before it is read. */
export interface CallOptions {
  signal?: AbortSignal
  /** Sent as `Request-Id`; the server echoes it and logs under it. */
  requestId?: string
}

export interface UploadBase extends CallOptions {
  /** Bytes sent so far, as the body streams out. */
  onProgress?: (bytesSent: number) => void
  /** The model version every row is scored with (GET /v1/models); absent: the current base version. */
  modelVersion?: string
}

/** openapi-fetch's answer to one call: the decoded body or error, and the response. */
export type Outcome<T> = { data?: T; error?: unknown; response: Response }
