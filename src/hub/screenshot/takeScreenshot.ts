/**
 * `screenshot` (docs/design.md §3.2): a session's screen as a PNG, and written to `path` when
 * one is given. What the tool and the UI's "Save screenshot" both call, through the hub.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ErrorCode, SwitchboardError, type SessionManager } from '../../core/index.js';
import type { Screenshot, ScreenshotRequest } from '../../mcp/server.js';
import { renderScreenshot, screenshotSize } from './pngRenderer.js';

/**
 * Why the hub may not write `file` for this session, or null: the hub runs outside every sandbox,
 * so a `path` goes only where the session could write itself (AgentSandbox.refusesWrite).
 */
type WriteGuard = (session: string, file: string) => string | null;

export async function takeScreenshot(
  manager: Pick<SessionManager, 'styledScreen'>,
  ref: string,
  request: ScreenshotRequest = {},
  guard?: WriteGuard,
): Promise<Screenshot> {
  const file = request.path;
  // Checked before anything is drawn: a relative path would land in the hub's cwd, which the agent does not know.
  if (file !== undefined && !path.isAbsolute(file)) {
    throw new SwitchboardError(
      ErrorCode.InvalidArgument,
      `path: "${file}" is not absolute; give an absolute path such as /tmp/screen.png, or leave path out to get the image only.`,
    );
  }
  const { session, screen } = await manager.styledScreen(ref);
  const refused = file !== undefined ? guard?.(session, file) : null;
  if (refused) {
    throw new SwitchboardError(
      ErrorCode.InvalidArgument,
      `path: the hub does not write ${file} for session ${session}: ${refused}. Give a path there, or leave path out to get the image only.`,
    );
  }
  const png = await renderScreenshot(screen, { theme: request.theme });
  const size = screenshotSize(screen.cols, screen.height);
  if (file !== undefined) await writePng(file, png);
  return { session, screen, png, ...size, ...(file !== undefined ? { path: file } : {}) };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Writes the PNG at `file`: a new file, or in place of an earlier PNG. Never through a link and
 * never over a file that is not a PNG (an agent's `path` must not overwrite an rc file or a
 * script with an image): the new bytes go to a temp file beside it, then rename over it.
 */
async function writePng(file: string, png: Buffer): Promise<void> {
  let existing: import('node:fs').Stats | undefined;
  try {
    existing = await fs.lstat(file);
  } catch {
    // a new file
  }
  if (existing) {
    const reason = existing.isSymbolicLink()
      ? 'it is a link'
      : !existing.isFile()
        ? 'it is not a file'
        : !(await startsWithPng(file))
          ? 'it exists and is not a PNG'
          : null;
    if (reason)
      throw new SwitchboardError(
        ErrorCode.InvalidArgument,
        `path: will not replace ${file} (${reason}); give a new file's path, or leave path out to get the image only.`,
      );
  }
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    await fs.writeFile(temp, png, { flag: 'wx' });
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const why: Record<string, string> = {
      ENOENT: 'its folder does not exist',
      EACCES: 'permission denied',
      EPERM: 'permission denied',
      EISDIR: 'it is a folder',
      ENOTDIR: 'a part of it is not a folder',
      EROFS: 'the file system is read-only',
      ENOSPC: 'the disk is full',
    };
    throw new SwitchboardError(
      ErrorCode.InvalidArgument,
      `path: cannot write ${file} (${code}: ${why[code] ?? 'the write failed'}); give a file path in a folder you can write to, or leave path out to get the image only.`,
    );
  }
}

async function startsWithPng(file: string): Promise<boolean> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(PNG_SIGNATURE.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length && head.equals(PNG_SIGNATURE);
  } finally {
    await handle.close();
  }
}
