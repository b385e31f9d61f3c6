/**
 * The agent sandbox as the hub runs it (docs/design.md §2.10): for each session about to open,
 * whether it is sandboxed, how (the launch wrapper), and the one sentence `list`, the results and
 * the window show for it. Only agents' sessions are sandboxed; the person's own never are, and an
 * agent's runs outside only when the person allowed it (`sandbox: false`, approved by the gate).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installCommand, probeSandbox, type SandboxAvailability } from './availability.js';
import type { BubblewrapPlan } from './bubblewrap.js';
import { DomainProxy } from './domainProxy.js';
import { linuxWrapper, macWrapper, type Wrapper } from './launchWrappers.js';
import { projectFolder, realpathOr } from './projectFolder.js';
import type { SandboxSettings } from './settings.js';

/** A session's sandbox as `list` shows it: the core's `SessionSandbox`. */
export interface SandboxInfo {
  on: boolean;
  off?: 'person' | 'allowed' | 'unavailable';
  filesystem?: 'project' | 'read-only' | 'off';
  project?: string | null;
  network?: 'on' | 'off' | string[];
  summary: string;
}

export interface SessionPlan {
  info: SandboxInfo;
  wrapper?: Wrapper;
}

/** Why a session cannot open: `SPAWN_FAILED` (no sandbox, and it is required) or `INVALID_ARGUMENT` (a folder agents may not work in). */
export class SandboxRefusal extends Error {
  constructor(
    readonly code: 'SPAWN_FAILED' | 'INVALID_ARGUMENT',
    message: string,
  ) {
    super(message);
  }
}

interface AgentSandboxOptions {
  /** The hub's state folder: never readable or writable in a sandbox. */
  stateDir: string;
  /** The setting in force (read as each session opens). */
  settings: () => SandboxSettings;
  /** The hub's environment: PATH to find the tools, HOME for `~/` and the project rule. */
  env: NodeJS.ProcessEnv;
  logger: { warn(message: string): void };
  platform?: NodeJS.Platform;
}

/** A session about to open, as the core asks. */
export interface SessionRequest {
  creator: { kind: 'agent'; client: string } | { kind: 'user' };
  cwd: string;
  sandbox: boolean;
}

export class AgentSandbox {
  private probed: SandboxAvailability;
  private probedAt: number;
  private readonly platform: NodeJS.Platform;
  private readonly home: string | undefined;
  private seccompFile: string | null | undefined;
  private proxy: Promise<DomainProxy> | undefined;
  private lastDomains: readonly string[] = [];

  constructor(private readonly options: AgentSandboxOptions) {
    this.platform = options.platform ?? process.platform;
    this.home = options.env.HOME;
    this.probed = probeSandbox(options.env, this.platform);
    this.probedAt = Date.now();
    if (!this.probed.available) options.logger.warn(`agent sessions are not sandboxed: ${this.probed.reason}; to fix it: ${this.probed.fix}`);
  }

  /** Whether a sandbox can start here; probed again (at most once a minute) while it cannot. */
  get availability(): SandboxAvailability {
    if (!this.probed.available && Date.now() - this.probedAt > 60_000) {
      this.probed = probeSandbox(this.options.env, this.platform);
      this.probedAt = Date.now();
    }
    return this.probed;
  }

  /** One line for `switchboard status` and the window: whether agents' sessions get a sandbox. */
  status(): { available: boolean; summary: string } {
    const availability = this.availability;
    if (availability.available)
      return { available: true, summary: `agent sessions run in a sandbox (${availability.platform === 'linux' ? 'bubblewrap' : 'Seatbelt'})` };
    const required = this.options.settings().required;
    return { available: false, summary: `${notSandboxed(availability)}${required ? ' (sandbox.required is on: agents cannot open sessions)' : ''}` };
  }

  /** The sandbox of one session about to open (the core's SandboxDecider). */
  async plan(request: SessionRequest): Promise<SessionPlan> {
    if (request.creator.kind === 'user') return { info: { on: false, off: 'person', summary: 'not sandboxed: your own session' } };
    if (!request.sandbox) return { info: { on: false, off: 'allowed', summary: 'not sandboxed: the person allowed this session to run outside the sandbox' } };
    const settings = this.options.settings();
    const availability = this.availability;
    if (!availability.available) {
      if (settings.required)
        throw new SandboxRefusal(
          'SPAWN_FAILED',
          `No sandbox can start here and the setting sandbox.required is on, so agent sessions are refused: ${availability.reason}. To fix it: ${availability.fix}.`,
        );
      return { info: { on: false, off: 'unavailable', summary: notSandboxed(availability) } };
    }
    const cwd = realpathOr(request.cwd);
    const denied = this.denied(settings);
    const inDenied = denied.find((entry) => isInside(cwd, entry.path));
    if (inDenied) {
      throw new SandboxRefusal(
        'INVALID_ARGUMENT',
        `cwd: "${request.cwd}" is inside ${inDenied.path}, which agents' sessions may not read (${inDenied.path === this.stateDir() ? "the hub's state folder" : 'setting sandbox.denied'}); choose another folder.`,
      );
    }
    const tmp = this.tmp();
    const project = settings.filesystem === 'project' ? projectFolder(cwd, this.home) : undefined;
    const { folders: writable, caches } = settings.filesystem === 'project' ? this.writable(settings, project!, tmp) : { folders: [], caches: 0 };
    const readOnly = project ? protectedGitPaths(project.gitProtected) : [];
    const network = await this.network(settings, availability);
    const info: SandboxInfo = {
      on: true,
      filesystem: settings.filesystem,
      ...(project ? { project: project.root } : {}),
      network: network.setting,
      summary: summary(settings, project?.root ?? null, project?.why, caches, tmp, network.words),
    };
    if (availability.platform === 'darwin') {
      const proxyPort = network.proxy?.port ?? null;
      return {
        info,
        wrapper: macWrapper({
          denied: denied.map((entry) => entry.path),
          writable: settings.filesystem === 'off' ? undefined : writable,
          readOnly,
          network: network.proxy && proxyPort !== null ? { mode: 'proxy', port: proxyPort } : { mode: network.setting === 'on' ? 'on' : 'off' },
          tmp,
        }),
      };
    }
    const plan: Omit<BubblewrapPlan, 'seccompFd'> = {
      cwd,
      filesystem: settings.filesystem,
      writable,
      readOnly,
      denied,
      tmp,
      network: network.proxy?.socket ? { mode: 'proxy', socket: network.proxy.socket } : { mode: network.setting === 'on' ? 'on' : 'off' },
      // apply-seccomp (with the proxy) makes a user namespace of its own for its pid namespace.
      disableUserns: availability.disableUserns && !network.proxy,
    };
    const seccompFile = this.seccomp(availability.seccomp);
    if ((network.proxy ? availability.applySeccomp : seccompFile) === null) info.summary += `; unix sockets are not refused (no filter for ${process.arch})`;
    const wrapper = linuxWrapper({ bwrap: availability.bwrap, bash: availability.bash, plan, seccompFile, applySeccomp: availability.applySeccomp });
    return { info, wrapper };
  }

  /**
   * Why the hub may not write `file` for an agent's session with this sandbox (a `screenshot`
   * path), or null when it may. The hub runs outside every sandbox, so it writes only where the
   * session itself could: never in the state folder or a denied path, in a sandboxed session's
   * git folders (its hooks and config stay read-only), nowhere for `read-only`, and for `project`
   * only in the project, temp and the writable folders. `file` is absolute; its folder is read
   * through links, as the kernel would follow them.
   */
  refusesWrite(info: SandboxInfo, file: string): string | null {
    const target = path.join(realpathOr(path.dirname(file)), path.basename(file));
    const settings = this.options.settings();
    const denied = this.denied(settings).find((entry) => isInside(target, entry.path));
    if (denied)
      return `${denied.path} is ${denied.path === this.stateDir() ? "the hub's state folder" : 'a path of setting sandbox.denied'}, which agents may not write`;
    if (!info.on || info.filesystem === 'off') return null;
    if (info.filesystem === 'read-only') return 'this session runs in a read-only sandbox (setting sandbox.filesystem), which writes nothing lasting';
    if (target.split(path.sep).includes('.git'))
      return 'a git folder stays read-only for sandboxed sessions (its hooks and config would run outside the sandbox)';
    const project = info.project ? projectFolder(info.project, this.home) : { root: null, gitDirs: [], gitProtected: [] };
    const { folders } = this.writable(settings, project, this.tmp());
    if (folders.some((folder) => isInside(target, folder))) return null;
    return `this session's sandbox writes only in ${folders.join(', ')}`;
  }

  async dispose(): Promise<void> {
    const proxy = this.proxy;
    this.proxy = undefined;
    await (await proxy?.catch(() => undefined))?.dispose();
  }

  /** The hub's temp folder (its TMPDIR, as os.tmpdir() reads it). */
  private tmp(): string {
    const fromEnv = this.options.env.TMPDIR;
    return realpathOr(fromEnv && path.isAbsolute(fromEnv) ? fromEnv.replace(/(.)\/+$/, '$1') : os.tmpdir());
  }

  private stateDir(): string {
    return realpathOr(this.options.stateDir);
  }

  /** The state folder and the setting's denied paths that exist, each a folder or a file. */
  private denied(settings: SandboxSettings): { path: string; folder: boolean }[] {
    const entries = [this.stateDir(), ...settings.denied.map((entry) => realpathOr(this.expand(entry)))];
    const found: { path: string; folder: boolean }[] = [];
    for (const entry of new Set(entries)) {
      try {
        found.push({ path: entry, folder: fs.statSync(entry).isDirectory() });
      } catch {
        // not there: nothing to hide
      }
    }
    return found;
  }

  /** The project (and its git folders), temp, and the setting's writable folders that exist. */
  private writable(settings: SandboxSettings, project: ReturnType<typeof projectFolder>, tmp: string): { folders: string[]; caches: number } {
    const folders = new Set([...(project.root ? [project.root, ...project.gitDirs] : []), tmp]);
    const own = folders.size;
    for (const entry of settings.writable) {
      const real = realpathOr(this.expand(entry));
      // A folder that does not exist is not made for the sandbox (it would appear in the person's home).
      if (fs.existsSync(real)) folders.add(real);
    }
    return { folders: [...folders], caches: folders.size - own };
  }

  private async network(
    settings: SandboxSettings,
    availability: Extract<SandboxAvailability, { available: true }>,
  ): Promise<{ setting: 'on' | 'off' | string[]; words: string; proxy?: DomainProxy }> {
    if (settings.network === 'on') return { setting: 'on', words: 'network on' };
    if (settings.network === 'off') return { setting: 'off', words: 'network off' };
    if (availability.platform === 'linux' && availability.socat === null) {
      return {
        setting: 'off',
        words: `network off: the list of domains needs socat, which is not installed (to fix it: ${installCommand('socat', this.options.env)})`,
      };
    }
    this.lastDomains = settings.network;
    try {
      this.proxy ??= DomainProxy.start(() => this.lastDomains, this.platform);
      const proxy = await this.proxy;
      return { setting: settings.network, words: `network only to ${settings.network.join(', ')}`, proxy };
    } catch (error) {
      this.proxy = undefined;
      this.options.logger.warn(`the sandbox's domain proxy could not start: ${(error as Error).message}`);
      return { setting: 'off', words: `network off: its proxy could not start (${(error as Error).message})` };
    }
  }

  /** The seccomp program, written once to the state folder (bubblewrap reads it before the sandbox hides that folder). */
  private seccomp(program: Buffer | null): string | null {
    if (this.seccompFile !== undefined) return this.seccompFile;
    if (program === null) return (this.seccompFile = null);
    const file = path.join(this.options.stateDir, 'sandbox-unix-sockets.bpf');
    try {
      fs.writeFileSync(file, program, { mode: 0o600 });
      this.seccompFile = file;
    } catch (error) {
      this.options.logger.warn(`the sandbox's unix-socket filter could not be written (${(error as Error).message}); sandboxes start without it`);
      this.seccompFile = null;
    }
    return this.seccompFile;
  }

  private expand(entry: string): string {
    if (entry === '~') return this.home ?? entry;
    if (entry.startsWith('~/')) return path.join(this.home ?? '/', entry.slice(2));
    return entry;
  }
}

/** "not sandboxed: <reason>; to fix it: <command>" (every result's warnings and the window say it). */
export function notSandboxed(availability: Extract<SandboxAvailability, { available: false }>): string {
  return `not sandboxed: ${availability.reason}; to fix it: ${availability.fix}`;
}

function summary(settings: SandboxSettings, project: string | null, why: string | undefined, cacheCount: number, tmp: string, network: string): string {
  switch (settings.filesystem) {
    case 'off':
      return `sandboxed: writes anywhere but the denied paths; ${network}`;
    case 'read-only':
      return `sandboxed: read-only (temp files go to a private ${tmp} that ends with the session); ${network}`;
    case 'project': {
      const caches = cacheCount > 0 ? ` and ${cacheCount} more folder${cacheCount === 1 ? '' : 's'} of sandbox.writable (package caches)` : '';
      if (!project) return `sandboxed: no project folder (${why}), so writes only to ${tmp}${caches}; ${network}`;
      return `sandboxed: writes only to ${project}, ${tmp}${caches}; ${network}`;
    }
  }
}

/** The git hooks folders and config files to keep read-only (a missing hooks folder is made, so none can be planted). */
function protectedGitPaths(paths: readonly string[]): string[] {
  const kept: string[] = [];
  for (const entry of paths) {
    if (path.basename(entry) === 'hooks' && !fs.existsSync(entry)) {
      try {
        fs.mkdirSync(entry);
      } catch {
        continue;
      }
    }
    if (fs.existsSync(entry)) kept.push(entry);
  }
  return kept;
}

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(`${parent}${path.sep}`);
}
