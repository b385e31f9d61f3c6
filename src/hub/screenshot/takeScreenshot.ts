/**
 * `screenshot` (docs/design.md §3.2): a session's screen as a PNG, and written to `path` when
 * one is given. What the tool and the UI's "Save screenshot" both call, through the hub.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ErrorCode, SwitchboardError, type SessionManager } from '../../core/index.js';
import type { Screenshot, ScreenshotRequest } from '../../mcp/server.js';
import { renderScreenshot, screenshotSize } from './pngRenderer.js';

export async function takeScreenshot(manager: Pick<SessionManager, 'styledScreen'>, ref: string, request: ScreenshotRequest = {}): Promise<Screenshot> {
  const file = request.path;
  // Checked before anything is drawn: a relative path would land in the hub's cwd, which the agent does not know.
  if (file !== undefined && !path.isAbsolute(file)) {
    throw new SwitchboardError(ErrorCode.InvalidArgument, `path: "${file}" is not absolute; give an absolute path such as /tmp/screen.png, or leave path out to get the image only.`);
  }
  const { session, screen } = await manager.styledScreen(ref);
  const png = await renderScreenshot(screen, { theme: request.theme });
  const size = screenshotSize(screen.cols, screen.height);
  if (file !== undefined) await writePng(file, png);
  return { session, screen, png, ...size, ...(file !== undefined ? { path: file } : {}) };
}

async function writePng(file: string, png: Buffer): Promise<void> {
  try {
    await fs.writeFile(file, png);
  } catch (error) {
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
