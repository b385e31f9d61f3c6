import * as os from 'node:os';
import { SessionManager, type CoreSettings } from '../core/sessionManager.js';
import type { Logger } from './logger.js';
import { loadSettings, type Settings } from './settings.js';
import { ensureStateDir } from './stateDir.js';

export interface HubOptions {
  stateDir: string;
  logger: Logger;
  /** Settings to use instead of `<stateDir>/settings.json` (tests). */
  settings?: Settings;
  env?: NodeJS.ProcessEnv;
}

/**
 * The composition root both hosts (Electron main, headless `serve`, and for now the shim)
 * construct the same way: state dir, settings, the session manager.
 */
export class Hub {
  readonly manager: SessionManager;
  readonly settings: Settings;
  readonly stateDir: string;
  readonly logger: Logger;
  private disposed = false;

  constructor(options: HubOptions) {
    const env = options.env ?? process.env;
    this.stateDir = ensureStateDir(options.stateDir);
    this.logger = options.logger;
    this.settings = options.settings ?? loadSettings(this.stateDir, env);
    this.manager = new SessionManager({
      settings: coreSettings(this.settings, env),
      stateDir: this.stateDir,
      baseEnv: env,
      onWarning: (message) => this.logger.warn(message),
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.manager.dispose();
  }
}

export function coreSettings(settings: Settings, env: NodeJS.ProcessEnv): CoreSettings {
  return {
    maxSessions: settings.maxSessions,
    scrollback: settings.scrollback,
    headLines: settings.commandHeadLines,
    shell: settings.shell ?? defaultShell(env),
    login: settings.loginShell,
    startupTimeoutMs: settings.shellStartupTimeoutMs,
    killWaitsMs: [settings.killWaitMs, settings.killWaitMs],
    closeGraceMs: settings.closeGraceMs,
    secretPatterns: settings.secretPatterns,
    secretAllow: settings.secretAllow,
    cols: settings.defaultCols,
    rows: settings.defaultRows,
  };
}

function defaultShell(env: NodeJS.ProcessEnv): string {
  if (env.SHELL) return env.SHELL;
  try {
    const shell = os.userInfo().shell;
    if (shell) return shell;
  } catch {
    // No passwd entry (containers): fall through.
  }
  return process.platform === 'darwin' ? '/bin/zsh' : '/bin/bash';
}
