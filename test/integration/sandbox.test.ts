/**
 * The agent sandbox (docs/design.md §2.10), for real: a hub in this
 * process, its agents' sessions in bubblewrap, an MCP client. Each test works in a folder made
 * for it under the system temp folder (helpers/sandboxHub.ts) and checks that folder only; what
 * an agent would try against the hub (its token, its process, its socket, inherited
 * descriptors) is tried here as an agent would, through `execute`, and must fail.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, removeHome, startHub, tempHome } from './helpers/hubProcess.js';
import { startSandboxHub, type SandboxHub } from './helpers/sandboxHub.js';

const hubs: SandboxHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.dispose()));
});

async function sandboxHub(options: Parameters<typeof startSandboxHub>[0] = {}): Promise<SandboxHub> {
  const h = await startSandboxHub(options);
  hubs.push(h);
  return h;
}

/** Runs `command` in `session` (or a new session in `cwd`), expecting it to finish. */
async function run(
  h: SandboxHub,
  args: { command: string; session?: string; cwd?: string; timeout_ms?: number },
): Promise<{ exit_code: number; output: string; session: string; warnings?: string[] }> {
  const sc = await h.ok('execute', { timeout_ms: 20_000, ...args });
  expect(sc.status, JSON.stringify(sc)).toBe('completed');
  return sc as { exit_code: number; output: string; session: string; warnings?: string[] };
}

async function open(h: SandboxHub, cwd: string): Promise<string> {
  return (await h.ok('open', { cwd })).session as string;
}

beforeAll(() => {
  // These tests are the sandbox itself: a machine without it fails them, saying what to install.
  const bwrap = spawnSync('bwrap', ['--version'], { encoding: 'utf8' });
  if (bwrap.status !== 0) throw new Error('bwrap is not installed: apt-get install bubblewrap (.ci/run installs it)');
});

describe('filesystem "project" (the default)', () => {
  it('writes go to the project folder and temp; elsewhere they fail as the program says, and the first execute names the sandbox once', async () => {
    const h = await sandboxHub();
    const session = await open(h, h.project);
    const first = await run(h, { session, command: 'echo made > made.txt && cat made.txt' });
    expect(first.output).toBe('made');
    expect(fs.readFileSync(path.join(h.project, 'made.txt'), 'utf8')).toBe('made\n');
    expect(first.warnings).toEqual([expect.stringMatching(/sandboxed: writes only to .*project.*sandbox: false/)]);
    const outside = await run(h, { session, command: `echo canary > ${h.outside}/canary` });
    expect(outside.exit_code).not.toBe(0);
    expect(outside.output).toContain('Read-only file system');
    expect(outside.warnings).toBeUndefined(); // named once per session
    expect(fs.existsSync(path.join(h.outside, 'canary'))).toBe(false);
    const temp = await run(h, { session, command: `echo t > ${h.tmp}/t && cat ${h.tmp}/t` });
    expect(temp.output).toBe('t');
    const home = await run(h, { session, command: 'touch ~/.bashrc-canary' });
    expect(home.output).toContain('Read-only file system');
    const listed = ((await h.ok('list', {})).sessions as Record<string, unknown>[]).find((s) => s.id === session);
    expect(listed?.sandbox).toMatchObject({ on: true, filesystem: 'project', project: h.project, network: 'on' });
  });

  it('the project is the git work tree holding the cwd; commits work, its hooks and config stay read-only', async () => {
    const h = await sandboxHub();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: h.project, env: { ...process.env, HOME: h.home } });
    git('init', '-q');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'first');
    fs.mkdirSync(path.join(h.project, 'sub'));
    const session = await open(h, path.join(h.project, 'sub'));
    const commit = await run(h, {
      session,
      command: 'echo x > ../top.txt && git add ../top.txt && git -c user.email=a@example.com -c user.name=a commit -qm agent && git log --format=%s -1',
    });
    expect(commit.output).toBe('agent');
    const hook = await run(h, { session, command: "echo '#!/bin/sh' > ../.git/hooks/post-commit" });
    expect(hook.output).toContain('Read-only file system');
    expect(fs.existsSync(path.join(h.project, '.git', 'hooks', 'post-commit'))).toBe(false);
    // Written straight into the file: `git config core.hooksPath` is a line the policy asks about itself.
    const config = await run(h, { session, command: "printf '[core]\\n\\thooksPath = /tmp/elsewhere\\n' >> ../.git/config" });
    expect(config.output).toContain('Read-only file system');
    expect(fs.readFileSync(path.join(h.project, '.git', 'config'), 'utf8')).not.toContain('hooksPath');
  });

  it('opened in the home folder, a session has no project folder: temp only, and it says so', async () => {
    const h = await sandboxHub();
    const opened = await h.ok('open', { cwd: h.home });
    expect(opened.sandbox).toMatchObject({ on: true, project: null, summary: expect.stringContaining('no project folder') });
    const write = await run(h, { session: opened.session as string, command: 'echo x > here.txt' });
    expect(write.output).toContain('Read-only file system');
    expect(fs.existsSync(path.join(h.home, 'here.txt'))).toBe(false);
  });

  it('sandbox.denied paths can be neither read nor written', async () => {
    const h = await sandboxHub({ settings: { sandbox: { denied: ['~/SECRETS'] } } });
    fs.mkdirSync(path.join(h.home, 'SECRETS'));
    fs.writeFileSync(path.join(h.home, 'SECRETS', 'key'), 'hunter2');
    const session = await open(h, h.project);
    const read = await run(h, { session, command: 'cat ~/SECRETS/key; ls -A ~/SECRETS | wc -l' });
    expect(read.output).not.toContain('hunter2');
    expect(read.output).toMatch(/No such file or directory\n0$/);
  });

  it('read-only: nothing lasting is written; temp files go to a private temp folder', async () => {
    const h = await sandboxHub({ settings: { sandbox: { filesystem: 'read-only' } } });
    const session = await open(h, h.project);
    expect((await run(h, { session, command: 'touch p' })).output).toContain('Read-only file system');
    expect((await run(h, { session, command: `echo t > ${h.tmp}/private && cat ${h.tmp}/private` })).output).toBe('t');
    expect(fs.existsSync(path.join(h.tmp, 'private'))).toBe(false);
  });

  it('off: writes go anywhere but the denied paths, and the state folder stays hidden', async () => {
    const h = await sandboxHub({ settings: { sandbox: { filesystem: 'off' } } });
    const session = await open(h, h.project);
    expect((await run(h, { session, command: `echo canary > ${h.outside}/canary` })).exit_code).toBe(0);
    expect(fs.readFileSync(path.join(h.outside, 'canary'), 'utf8')).toBe('canary\n');
    expect((await run(h, { session, command: `ls -A ${h.stateDir} | wc -l` })).output).toBe('0');
  });
});

describe('what an agent would try against the hub', () => {
  it('cannot read the token, settings, transcripts or history: the state folder is empty inside', async () => {
    const h = await sandboxHub();
    fs.writeFileSync(path.join(h.stateDir, 'token'), 'TOKEN-CANARY');
    const session = await open(h, h.project);
    const tries = await run(h, {
      session,
      command: `cat ${h.stateDir}/token; ls -A ${h.stateDir} | wc -l; grep -rs TOKEN-CANARY / --include=token 2>/dev/null | head -1; echo end`,
      timeout_ms: 60_000,
    });
    expect(tries.output).not.toContain('TOKEN-CANARY');
    expect(tries.output).toMatch(/No such file or directory\n0\nend$/);
    // …and cannot write anything there either (settings.json is applied live).
    expect((await run(h, { session, command: `echo '{}' > ${h.stateDir}/settings.json` })).output).toContain('Read-only file system');
    expect(fs.existsSync(path.join(h.stateDir, 'settings.json'))).toBe(false);
    // Nor open a session in it.
    const inside = await h.call('open', { cwd: path.join(h.stateDir, 'sessions') });
    expect(inside.error?.code).toBe('INVALID_ARGUMENT');
    expect(inside.text).toContain("which agents' sessions may not read (the hub's state folder)");
  });

  it("cannot see, signal or reach through the hub's process (/proc/<pid>/root, environ)", async () => {
    const h = await sandboxHub();
    fs.writeFileSync(path.join(h.stateDir, 'token'), 'TOKEN-CANARY');
    const session = await open(h, h.project);
    const hubPid = process.pid;
    const tries = await run(h, {
      session,
      command: `kill -0 ${hubPid} 2>&1; cat /proc/${hubPid}/root${h.stateDir}/token 2>&1; cat /proc/${hubPid}/environ 2>&1 | head -c 40; echo; ls /proc | grep -c '^[0-9]'`,
    });
    expect(tries.output).toContain('No such process');
    expect(tries.output).not.toContain('TOKEN-CANARY');
    // Only the sandbox's own processes: bubblewrap's init, the launcher or shell, these commands.
    expect(Number(tries.output.split('\n').at(-1))).toBeLessThan(10);
  });

  it('inherits no descriptor of the hub (sockets, pipes, files): only the terminal', async () => {
    const h = await sandboxHub();
    const session = await open(h, h.project);
    // The shell's own descriptors, then a child's (ls lists its own), as `ls -l` shows them: "N -> target".
    const fds = await run(h, { session, command: 'ls -l /proc/$$/fd /proc/self/fd' });
    const targets = fds.output
      .split('\n')
      .filter((line) => line.includes(' -> '))
      .map((line) => line.split(' -> ')[1]);
    expect(targets.length).toBeGreaterThanOrEqual(6);
    // The terminal (by its name inside: bash's own handle on it is /dev/console), or ls's handle on the listed folder.
    for (const target of targets) expect(target).toMatch(/^(\/dev\/pts\/\d+|\/dev\/console|\/proc\/\d+\/fd)$/);
  });

  it('cannot open a unix socket: not the hub’s, nor an abstract one on the machine (the desktop bus, X11 live there)', async () => {
    const h = await sandboxHub();
    const name = `sb-sandbox-test-${process.pid}`;
    const server = net.createServer((socket) => socket.end('REACHED\n'));
    await new Promise<void>((resolve) => server.listen(`\0${name}`, resolve));
    try {
      const session = await open(h, h.project);
      const python = `/usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\\\0${name}'); print(s.recv(10))"`;
      const tried = await run(h, { session, command: `${python} 2>&1 | tail -1` });
      expect(tried.output).toMatch(/PermissionError: \[Errno 1\] Operation not permitted/);
      expect(tried.output).not.toContain('REACHED');
      // A pair of connected sockets reaches no one: still allowed (multiprocessing, test runners use them).
      expect((await run(h, { session, command: '/usr/bin/python3 -c "import socket; print(len(socket.socketpair()))"' })).output).toBe('2');
    } finally {
      server.close();
    }
  });

  it('reads the shell-integration scripts it runs, and cannot change them', async () => {
    const h = await sandboxHub();
    const session = await open(h, h.project);
    const script = path.join(ROOT, 'assets', 'shell-integration', 'bash.sh');
    // Appending nothing: were the sandbox broken, the file would not change either.
    const tried = await run(h, { session, command: `test -r ${script} && echo readable; : >> ${script}` });
    expect(tried.output).toMatch(/^readable\n.*Read-only file system/);
  });
});

describe('network', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_request, response) => response.end('FROM-THE-HOST'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
    return () => new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const fetchLine = (url: string): string =>
    `/usr/bin/python3 -c "import urllib.request as u; print(u.urlopen('${url}', timeout=5).read().decode())" 2>&1 | tail -1`;

  it('on: the machine’s network, loopback included', async () => {
    const h = await sandboxHub();
    const session = await open(h, h.project);
    expect((await run(h, { session, command: fetchLine(`http://127.0.0.1:${port}/`) })).output).toBe('FROM-THE-HOST');
  });

  it('off: a network of its own, with nothing but its own loopback', async () => {
    const h = await sandboxHub({ settings: { sandbox: { network: 'off' } } });
    const session = await open(h, h.project);
    const tried = await run(h, { session, command: fetchLine(`http://127.0.0.1:${port}/`) });
    expect(tried.output).toMatch(/Connection refused/);
    expect(tried.output).not.toContain('FROM-THE-HOST');
  });

  it('a list of domains: only those, through the filtering proxy; nothing else, not even by address', async () => {
    if (spawnSync('socat', ['-V']).status !== 0) throw new Error('socat is not installed: apt-get install socat (.ci/run installs it)');
    const h = await sandboxHub({ settings: { sandbox: { network: ['localhost'] } } });
    const opened = await h.ok('open', { cwd: h.project });
    expect(opened.sandbox).toMatchObject({ on: true, network: ['localhost'] });
    const session = opened.session as string;
    // localhost is in NO_PROXY (the sandbox's own loopback): without it, urllib asks the proxy.
    const viaProxy = (url: string): string => `env -u NO_PROXY -u no_proxy ${fetchLine(url)}`;
    expect((await run(h, { session, command: viaProxy(`http://localhost:${port}/`) })).output).toBe('FROM-THE-HOST');
    const byAddress = await run(h, { session, command: viaProxy(`http://127.0.0.1:${port}/`) });
    expect(byAddress.output).toMatch(/HTTP Error 403/);
    const direct = await run(h, { session, command: fetchLine(`http://127.0.0.1:${port}/`) });
    expect(direct.output).toMatch(/Connection refused/);
  });
});

describe('package managers work in a sandboxed project', () => {
  it('npm install of a local package tarball', async () => {
    const h = await sandboxHub();
    // A machine where npm has run before has its cache folder (one that does not exist is not made).
    fs.mkdirSync(path.join(h.home, '.npm'));
    const pkg = path.join(h.tmp, 'local-pkg');
    fs.mkdirSync(pkg);
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'sb-local-pkg', version: '1.0.0', main: 'index.js' }));
    fs.writeFileSync(path.join(pkg, 'index.js'), 'module.exports = 42;\n');
    const tarball = path.join(
      h.tmp,
      execFileSync('npm', ['pack', '--silent', '--pack-destination', h.tmp], { cwd: pkg, encoding: 'utf8', env: { ...process.env, HOME: h.home } }).trim(),
    );
    fs.writeFileSync(path.join(h.project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    const session = await open(h, h.project);
    const installed = await run(h, {
      session,
      command: `npm install --no-audit --no-fund --offline ${tarball} >/dev/null 2>&1; echo $?; node -p "require('sb-local-pkg')"`,
      timeout_ms: 120_000,
    });
    expect(installed.output).toBe('0\n42');
    expect(fs.existsSync(path.join(h.project, 'node_modules', 'sb-local-pkg', 'index.js'))).toBe(true);
  });

  it('python3 -m venv, then pip install of a local wheel into it', async () => {
    const h = await sandboxHub();
    const wheel = path.join(h.tmp, 'sb_local-1.0-py3-none-any.whl');
    execFileSync('/usr/bin/python3', ['-c', WHEEL_MAKER, wheel]);
    const session = await open(h, h.project);
    const installed = await run(h, {
      session,
      command: `/usr/bin/python3 -m venv .venv && .venv/bin/pip install --no-index --disable-pip-version-check -q ${wheel} && .venv/bin/python -c "import sb_local; print(sb_local.ANSWER)"`,
      timeout_ms: 120_000,
    });
    expect(installed.output).toBe('42');
    expect(fs.existsSync(path.join(h.project, '.venv', 'bin', 'python'))).toBe(true);
  });

  it('cargo build of a crate in the project', async () => {
    const cargo = findCargo();
    const h = await sandboxHub({ env: { ...cargo.env, PATH: `${path.dirname(cargo.file)}:${process.env.PATH ?? ''}` } });
    fs.mkdirSync(path.join(h.home, '.cargo', 'registry'), { recursive: true });
    const crate = path.join(h.project, 'app');
    fs.mkdirSync(path.join(crate, 'src'), { recursive: true });
    fs.writeFileSync(path.join(crate, 'Cargo.toml'), '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n');
    fs.writeFileSync(path.join(crate, 'src', 'main.rs'), 'fn main() { println!("built {}", 6 * 7); }\n');
    const session = await open(h, crate);
    const built = await run(h, { session, command: 'cargo build --offline -q 2>&1 | tail -3; ./target/debug/app', timeout_ms: 180_000 });
    expect(built.output).toBe('built 42');
  });
});

/**
 * A cargo that runs here: one on PATH that works as it is (Debian's `cargo`, which .ci/run
 * installs), else rustup's in the user's real home (the test's HOME is a fresh one, so rustup is
 * told where its toolchains are; read-only in the sandbox). Only where cargo is found comes from
 * the machine; the build itself runs in the test's project.
 */
function findCargo(): { file: string; env: Record<string, string> } {
  const works = (file: string, env: Record<string, string>): boolean => {
    try {
      execFileSync(file, ['--version'], { env: { ...process.env, ...env }, stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const file = path.join(dir, 'cargo');
    if (dir.startsWith('/') && fs.existsSync(file) && works(file, {})) return { file, env: {} };
  }
  const realHome = os.userInfo().homedir;
  const rustup = { file: path.join(realHome, '.cargo', 'bin', 'cargo'), env: { RUSTUP_HOME: path.join(realHome, '.rustup') } };
  if (fs.existsSync(rustup.file) && works(rustup.file, rustup.env)) return rustup;
  throw new Error('no working cargo on PATH or in ~/.cargo/bin: install it (apt-get install cargo, or rustup; .ci/run installs cargo) to run this test');
}

describe('where no sandbox can start', () => {
  /** A PATH of links to everything on this one but bubblewrap: a machine without it, for real. */
  function pathWithout(root: string, name: string): string {
    const dir = path.join(root, 'bin-without-' + name);
    fs.mkdirSync(dir);
    for (const entry of (process.env.PATH ?? '').split(':')) {
      if (!entry.startsWith('/') || !fs.existsSync(entry)) continue;
      for (const file of fs.readdirSync(entry, { withFileTypes: true }).map((d) => d.name)) {
        if (file !== name && !fs.existsSync(path.join(dir, file))) fs.symlinkSync(path.join(entry, file), path.join(dir, file));
      }
    }
    return dir;
  }

  it('agent sessions still open, and every result says "not sandboxed" with the reason and the command that fixes it', async () => {
    const root = tempHome('sb-nobwrap-');
    try {
      const h = await sandboxHub({ env: { PATH: pathWithout(root, 'bwrap') } });
      const opened = await h.call('open', { cwd: h.project });
      const expected = 'not sandboxed: bubblewrap (bwrap) is not installed; to fix it: sudo apt-get install bubblewrap';
      expect(opened.sc.warnings).toEqual([expected]);
      expect(opened.sc.sandbox).toMatchObject({ on: false, off: 'unavailable', summary: expected });
      const session = opened.sc.session as string;
      for (let i = 0; i < 2; i++) expect((await run(h, { session, command: 'echo still' })).warnings).toEqual([expected]);
      expect(h.hub.sandbox.status()).toEqual({ available: false, summary: expected });
    } finally {
      removeHome(root);
    }
  });

  it('a bubblewrap that cannot start counts too, and sandbox.required makes it a refusal (SPAWN_FAILED)', async () => {
    const root = tempHome('sb-badbwrap-');
    try {
      const bin = path.join(root, 'bin');
      fs.mkdirSync(bin);
      // The real bubblewrap, asked for an option it refuses: it fails as a broken one would.
      fs.writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\nexec /usr/bin/bwrap --no-such-option "$@"\n', { mode: 0o755 });
      const h = await sandboxHub({ env: { PATH: `${bin}:${process.env.PATH ?? ''}` }, settings: { sandbox: { required: true } } });
      const refused = await h.call('open', { cwd: h.project });
      expect(refused.isError).toBe(true);
      expect(refused.error?.code).toBe('SPAWN_FAILED');
      expect(refused.text).toMatch(/sandbox\.required is on.*bubblewrap could not start.*To fix it: /);
      const execute = await h.call('execute', { command: 'echo never', cwd: h.project });
      expect(execute.error?.code).toBe('SPAWN_FAILED');
      expect(h.hub.manager.list()).toEqual([]);
    } finally {
      removeHome(root);
    }
  });

  it('switchboard status says so', async () => {
    const root = tempHome('sb-status-');
    const hub = await startHub({ env: { PATH: pathWithout(root, 'bwrap') } });
    try {
      const status = spawnSync(process.execPath, [BIN, 'status'], { env: cleanEnv({ SWITCHBOARD_HOME: hub.home }), encoding: 'utf8' });
      expect(status.stdout).toContain('sandbox:   not sandboxed: bubblewrap (bwrap) is not installed; to fix it: sudo apt-get install bubblewrap');
    } finally {
      await hub.stop();
      removeHome(hub.home);
      removeHome(root);
    }
  });
});

describe('who is sandboxed', () => {
  it("the person's own sessions never are; an agent's runs outside only when opened with sandbox: false, and execute without session never lands there", async () => {
    const h = await sandboxHub();
    const person = await h.hub.manager.open({ creator: { kind: 'user' }, cwd: h.project });
    expect(person.sandbox).toEqual({ on: false, off: 'person', summary: 'not sandboxed: your own session' });
    const client = 'sandbox-test 1.0';
    const allowed = await h.hub.manager.open({ creator: { kind: 'agent', client }, cwd: h.project, sandbox: false });
    expect(allowed.sandbox).toMatchObject({ on: false, off: 'allowed' });
    expect(h.hub.manager.findIdleShell(client, h.project, undefined, false)).toBe(allowed);
    expect(h.hub.manager.findIdleShell(client, h.project)).toBeUndefined();
    // execute without session opens a sandboxed shell rather than take the allowed one.
    const ran = await run(h, { command: 'echo picked', cwd: h.project });
    expect(ran.session).not.toBe(allowed.id);
    expect(h.hub.manager.get(ran.session).sandbox.on).toBe(true);
    const again = await run(h, { command: 'echo again', cwd: h.project });
    expect(again.session).toBe(ran.session);
  });
});

/** Writes a minimal pure-Python wheel (a module sb_local with ANSWER = 42) to argv[1]. */
const WHEEL_MAKER = `
import sys, zipfile
files = {
  "sb_local/__init__.py": "ANSWER = 42\\n",
  "sb_local-1.0.dist-info/METADATA": "Metadata-Version: 2.1\\nName: sb-local\\nVersion: 1.0\\n",
  "sb_local-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
files["sb_local-1.0.dist-info/RECORD"] = "".join(name + ",,\\n" for name in files) + "sb_local-1.0.dist-info/RECORD,,\\n"
with zipfile.ZipFile(sys.argv[1], "w") as z:
  for name, text in files.items():
    z.writestr(name, text)
`;
