/**
 * Coded errors the core raises. The MCP layer turns them into `isError` tool
 * results whose text leads with the code (docs/design.md §3.5); the UI shows the message.
 * Every message says what was wrong and what to do next.
 */
export const ErrorCode = {
  SessionNotFound: 'SESSION_NOT_FOUND',
  SessionBusy: 'SESSION_BUSY',
  SessionControlledByUser: 'SESSION_CONTROLLED_BY_USER',
  SecretPrompt: 'SECRET_PROMPT',
  SessionExited: 'SESSION_EXITED',
  LimitReached: 'LIMIT_REACHED',
  InvalidArgument: 'INVALID_ARGUMENT',
  SpawnFailed: 'SPAWN_FAILED',
  /** The person's policy, or the person, refused the command (docs/design.md §2.9). */
  CommandDenied: 'COMMAND_DENIED',
  /**
   * The remote machine a call is for is not connected, or its link dropped while the call ran
   * and the result is unknown (docs/design.md §4.7); raised by the hub, which links machines.
   */
  RemoteUnavailable: 'REMOTE_UNAVAILABLE',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class SwitchboardError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra structured facts for the caller (e.g. the running command). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SwitchboardError';
  }
}

export function isSwitchboardError(e: unknown): e is SwitchboardError {
  return e instanceof SwitchboardError;
}
