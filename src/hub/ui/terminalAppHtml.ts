/**
 * The terminal app's HTML (docs/design.md §3.8): one document, `dist/apps/terminal.html`, built
 * from `apps/terminal/` with the renderer (scripts/buildRenderer.mjs). Read once, when a host
 * first asks for `ui://switchboard/terminal`; a hub without the built file says so in its log
 * once, and the resource read says it is not available.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { packageRoot } from '../../packageInfo.js';
import type { Logger } from '../common/logger.js';

function terminalAppFile(): string {
  return path.join(packageRoot(), 'dist', 'apps', 'terminal.html');
}

export function terminalAppLoader(logger: Pick<Logger, 'warn'>, file: string = terminalAppFile()): () => Promise<string | undefined> {
  let loading: Promise<string | undefined> | undefined;
  return () =>
    (loading ??= fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      logger.warn(`the terminal app cannot be read from ${file} (${error.code ?? error.message}); run npm run build`);
      loading = undefined; // a build made meanwhile is read at the next request
      return undefined;
    }));
}
