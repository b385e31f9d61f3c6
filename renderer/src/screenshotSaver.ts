/**
 * "Save screenshot" (docs/design.md §5.2): asks the hub for the `screenshot` tool's own PNG of a
 * session, in the theme the person sees, and downloads it as `<name or id>-<yyyymmdd-hhmmss>.png`
 * (an <a download> on a blob URL: a browser's download, the Electron window's save dialog). The
 * file is named when the person clicks, so its time is when they saw the screen.
 */
import type { ClientMessage, HubMessage } from '../../src/ui-protocol/index.js';

/** Blob URLs are revoked this long after the click: the download has its bytes by then. */
const REVOKE_AFTER_MS = 60_000;

/** `req`s of screenshot requests: their own range, apart from any other request the page numbers. */
const FIRST_REQ = 1_000_000;

export class ScreenshotSaver {
  private nextReq = FIRST_REQ;
  /** Requests in flight: the file name each will be saved as, by `req`. */
  private readonly pending = new Map<number, { session: string; file: string }>();

  constructor(
    private readonly send: (message: ClientMessage) => void,
    private readonly changed: () => void,
  ) {}

  /** The person asked for a screenshot of `session`, shown as `name` (null: unnamed) in `theme`. */
  save(session: string, name: string | null, theme: 'dark' | 'light', now = new Date()): void {
    if (this.busy(session)) return;
    const req = this.nextReq++;
    this.pending.set(req, { session, file: screenshotFileName(name ?? session, now) });
    this.send({ type: 'screenshot', session, theme, req });
    this.changed();
  }

  /** Whether a screenshot of `session` is on its way. */
  busy(session: string): boolean {
    return [...this.pending.values()].some((entry) => entry.session === session);
  }

  /** Every hub message: the answer to one of ours is downloaded (or, an error, forgotten; the page toasts it). */
  receive(message: HubMessage): void {
    if ((message.type !== 'screenshotTaken' && message.type !== 'error') || message.req === undefined) return;
    const entry = this.pending.get(message.req);
    if (!entry) return;
    this.pending.delete(message.req);
    if (message.type === 'screenshotTaken') download(message.png, entry.file);
    this.changed();
  }

  /** The connection dropped: answers in flight will not come. */
  reset(): void {
    if (this.pending.size === 0) return;
    this.pending.clear();
    this.changed();
  }
}

/** `<name>-<yyyymmdd-hhmmss>.png` in local time; characters a file name cannot hold become `_`. */
export function screenshotFileName(name: string, at: Date): string {
  const two = (value: number): string => String(value).padStart(2, '0');
  const stamp = `${at.getFullYear()}${two(at.getMonth() + 1)}${two(at.getDate())}-${two(at.getHours())}${two(at.getMinutes())}${two(at.getSeconds())}`;
  const safe =
    name
      .replace(/[^\p{L}\p{N}._-]+/gu, '_')
      .replace(/^[._]+/, '')
      .slice(0, 80) || 'session';
  return `${safe}-${stamp}.png`;
}

function download(base64: string, file: string): void {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const url = URL.createObjectURL(new Blob([bytes], { type: 'image/png' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
