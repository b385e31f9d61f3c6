/**
 * A session named in the page's address, `#session=<id>`: the link the terminal app in a chat
 * opens (docs/design.md §3.8). The page watches that session (its tab in front, or as soon as
 * it is listed), as when the tray asks the Electron window to.
 */
import type { AppCommand } from '../../src/ui-protocol/index.js';

export function addressCommand(hash: string): AppCommand | null {
  const match = /^#session=([^&]{1,384})$/.exec(hash);
  if (!match) return null;
  let session: string;
  try {
    session = decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
  return session.length > 0 && session.length <= 128 ? { type: 'watch', session } : null;
}
