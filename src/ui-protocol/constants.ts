/** The UI protocol's version, flow-control numbers, size limits and error codes (docs/conventions.md rule 3). */

/** Bumped on any incompatible change (2: frames carry bytes, acks count bytes). */
export const UI_PROTOCOL_VERSION = 2;

/** Flow-control constants (bytes of frames). The hub tells the client in `welcome`. */
export const FLOW_ACK_EVERY = 5_000;
export const FLOW_HIGH_WATERMARK = 100_000;
export const FLOW_LOW_WATERMARK = 5_000;
/** Frames to one viewer are batched at most this long. */
export const FRAME_BATCH_MS = 16;
/** Input larger than this in one message is refused (paste in pieces). */
export const MAX_INPUT_CHARS = 1_000_000;
/** At most this many settings in one `setSettings`. */
export const MAX_SETTING_CHANGES = 64;
/** A screenshot's PNG larger than this is refused, not sent (it travels as base64 in JSON). */
export const MAX_SCREENSHOT_BYTES = 16 * 1024 * 1024;

/** Error codes of the protocol; the core's codes (SESSION_NOT_FOUND, …) pass through as is. */
export const UiErrorCode = {
  /** Not JSON, or not a valid message. */
  BadMessage: 'BAD_MESSAGE',
  /** Input/resize into a session the person does not control: take over first. */
  NotInControl: 'NOT_IN_CONTROL',
  /** `hello` was not the first message, or a protocol version the hub does not speak. */
  Protocol: 'PROTOCOL',
  /** `answerApproval` for an id that is not pending (unknown, answered or withdrawn). */
  UnknownApproval: 'UNKNOWN_APPROVAL',
  /** A screenshot is already being taken for this UI: wait for it. */
  Busy: 'BUSY',
  /** A screenshot over MAX_SCREENSHOT_BYTES. */
  TooLarge: 'TOO_LARGE',
  /** `confirmSettings`/`discardSettings` for a change that no longer waits (or no longer as it was seen). */
  NotWaiting: 'NOT_WAITING',
  /** `setSettings` over a connection signed in with the token: saved, but it waits for the person. */
  HeldForPerson: 'HELD_FOR_PERSON',
  /**
   * Only the person's channels may do this (answer an approval, type, take over, …): this
   * connection signed in with the bearer token, which agents hold (docs/design.md §2.9).
   */
  PersonOnly: 'PERSON_ONLY',
  /** The remote a session or approval is on is not connected now (docs/design.md §4.7; `remotes` says why). */
  RemoteUnavailable: 'REMOTE_UNAVAILABLE',
  Internal: 'INTERNAL',
} as const;

/** Lines of one `commandOutput` answer at most (page with `offset`). */
export const MAX_COMMAND_OUTPUT_LINES = 5_000;
