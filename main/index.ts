/**
 * Electron main process entry (dist/main/index.js). Thin: process-level lifecycle only; the
 * composition lives in app.ts.
 *
 *  - State dir: `defaultStateDir()`, the very folder the shim waits on (SWITCHBOARD_HOME, else
 *    ~/Library/Application Support/Switchboard on macOS), so the app the shim starts with
 *    `open -g` serves the shim's socket. Chromium's own profile goes to `<state>/electron`.
 *  - One app per state dir (Electron's single-instance lock, then the hub's own lock). A second
 *    launch is a person's action: the first instance shows its window; the second says which
 *    process holds the state dir and exits non-zero (docs/design.md §4.1).
 *  - macOS: no Dock icon (LSUIElement in the bundle; `dock.hide()` for `npm start`). The app is
 *    never activated by itself. `activate` (sent when the app is re-opened, also by the shim's
 *    `open -g`) deliberately shows nothing: the person opens the window from the menu bar.
 *  - Quit (menu, Cmd-Q, SIGINT/SIGTERM/SIGHUP, logout): `before-quit` is held until the hub
 *    has closed every session and flushed the transcripts (bounded by 15 s).
 */
import * as path from 'node:path';
import { app, protocol, shell } from 'electron';
import { readHubInfo, defaultStateDir, ensureStateDir } from '../src/hub/index.js';
import { SwitchboardApp } from './app.js';
import { createAppLogger } from './appLogger.js';
import { registerAppScheme } from './appProtocol.js';
import { trayIconsDir } from './paths.js';
import { showStartupErrorTray } from './tray.js';

const QUIT_TIMEOUT_MS = 15_000;

const stateDir = ensureStateDir(defaultStateDir(process.env));
const logger = createAppLogger(stateDir);

// Before `ready`: Chromium's profile (and the single-instance lock, which lives there) per
// state dir; the UI's scheme; every renderer sandboxed.
app.setPath('userData', path.join(stateDir, 'electron'));
registerAppScheme(protocol);
app.enableSandbox();

let instance: SwitchboardApp | undefined;
/** Something kept outside `instance` (the startup-error tray) until quit. */
let keepAlive: { destroy(): void } | undefined;
let showWhenStarted = false;
/** The start in progress: quitting waits for it, so a hub still starting is closed too. */
let starting: Promise<void> | undefined;
let phase: 'running' | 'stopping' | 'stopped' = 'running';

if (!app.requestSingleInstanceLock()) {
  const holder = readHubInfo(stateDir);
  logger.warn(`another Switchboard app${holder ? ` (pid ${holder.pid})` : ''} already runs for ${stateDir}; it opens its window instead. Exiting.`);
  app.exit(1);
} else {
  if (process.platform === 'darwin') app.dock?.hide();

  // A person launched the app again: open the first instance's window.
  app.on('second-instance', () => {
    if (instance) instance.showForPerson('second-instance');
    else showWhenStarted = true;
  });
  // A menu-bar app stays when its window closes.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', (event) => {
    if (phase === 'stopped') return;
    event.preventDefault();
    if (phase === 'stopping') return;
    phase = 'stopping';
    void stop().finally(() => {
      phase = 'stopped';
      app.quit();
    });
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => app.quit());

  void app.whenReady().then(() => {
    starting = start();
  });
}

async function start(): Promise<void> {
  try {
    instance = await SwitchboardApp.start({ stateDir, logger });
    if (showWhenStarted && phase === 'running') instance.showForPerson('second-instance');
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    logger.error(`could not start: ${message}`);
    keepAlive = showStartupErrorTray({
      iconsDir: trayIconsDir(),
      message,
      logFile: logger.file,
      openPath: (file) => void shell.openPath(file),
      quit: () => app.quit(),
    });
  }
}

async function stop(): Promise<void> {
  logger.info('quitting: closing sessions');
  keepAlive?.destroy();
  await starting;
  const current = instance;
  instance = undefined;
  if (!current) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      logger.warn(`quitting: sessions did not close within ${QUIT_TIMEOUT_MS / 1000} s; exiting anyway`);
      resolve();
    }, QUIT_TIMEOUT_MS);
  });
  try {
    await Promise.race([current.dispose(), timeout]);
  } catch (error) {
    logger.error(`while quitting: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
