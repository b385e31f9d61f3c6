/**
 * Everything taken from @anthropic-ai/sandbox-runtime (Claude Code's sandbox, Apache-2.0), in one
 * place: its public entry would start its own bubblewrap with `--new-session` (no job control
 * on a PTY; docs/decisions.md "The sandbox"), so we take three pieces from its modules instead:
 *   - the HTTP proxy that lets through only the hosts a filter allows (CONNECT and plain HTTP),
 *   - its domain patterns (`example.com`, `*.example.com`),
 *   - the macOS Seatbelt profile and `sandbox-exec` command it writes,
 *   - its `apply-seccomp` program (static, x64 and arm64), which starts a command with unix and VM
 *     sockets refused in a pid namespace of its own, once the proxy's listener is up beside it.
 * Loaded on first use (the hub starts without them). Shape test:
 * test/unit/sandbox/srtInternals.test.ts, which fails when an update moves or changes them.
 */
import * as fs from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import * as path from 'node:path';

/** The library's `apply-seccomp` for this machine's architecture, or undefined where it ships none. */
export function applySeccompPath(arch: string = process.arch): string | undefined {
  try {
    const root = path.dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime/package.json'));
    // In the packaged app the program is unpacked beside app.asar (electron-builder.yml asarUnpack).
    const file = path.join(root, 'vendor', 'seccomp', arch, 'apply-seccomp').replace(/app\.asar([/\\])/, 'app.asar.unpacked$1');
    fs.accessSync(file, fs.constants.X_OK);
    return file;
  } catch {
    return undefined;
  }
}

/** The proxy's host filter: true lets the connection through. */
type HostFilter = (port: number, host: string) => boolean;

/** An HTTP proxy that opens only what `filter` allows; not listening yet. */
export async function createFilteringProxy(filter: HostFilter): Promise<Server> {
  const { createHttpProxyServer } = await import('@anthropic-ai/sandbox-runtime/dist/sandbox/http-proxy.js');
  return createHttpProxyServer({ filter: (port, host) => filter(port, host) });
}

/** `host` matches the pattern (`example.com` exactly, `*.example.com` any name under it), as the library's proxy matches. */
export async function domainMatcher(): Promise<(host: string, pattern: string) => boolean> {
  const { matchesDomainPattern } = await import('@anthropic-ai/sandbox-runtime/dist/sandbox/domain-pattern.js');
  return matchesDomainPattern;
}

export interface SeatbeltRequest {
  /** A POSIX shell command (already quoted) to run inside the sandbox. */
  command: string;
  /** Paths neither read nor written. */
  denied: string[];
  /** Folders it may write; undefined: anywhere. */
  writable: string[] | undefined;
  /** Paths inside writable folders kept read-only. */
  readOnly: string[];
  /** `on`, `off`, or only through the proxy on this loopback port. */
  network: { mode: 'on' } | { mode: 'off' } | { mode: 'proxy'; port: number };
}

/**
 * The command line that runs `request.command` under `sandbox-exec` with the library's Seatbelt
 * profile (macOS; not run on a Mac by this project's tests: the profile and arguments are
 * checked as text, test/unit/sandbox/seatbelt.test.ts). A shell command, for `/bin/sh -c`.
 */
export async function seatbeltCommand(request: SeatbeltRequest): Promise<string> {
  const { wrapCommandWithSandboxMacOS } = await import('@anthropic-ai/sandbox-runtime/dist/sandbox/macos-sandbox-utils.js');
  return wrapCommandWithSandboxMacOS({
    command: request.command,
    needsNetworkRestriction: request.network.mode !== 'on',
    ...(request.network.mode === 'proxy' ? { httpProxyPort: request.network.port } : {}),
    readConfig: { denyOnly: request.denied },
    // A denied path is neither read nor written, wherever it is.
    writeConfig: { allowOnly: request.writable ?? ['/'], denyWithinAllow: [...request.readOnly, ...request.denied] },
    // An interactive shell on a PTY: its terminal ioctls must be allowed.
    allowPty: true,
    binShell: 'bash',
  });
}
