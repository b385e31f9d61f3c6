/**
 * The `sandbox` setting (docs/design.md §2.10): what agents' sessions may write and reach. One
 * object in the hub's settings schema; the hub reads it when a session opens.
 */
import * as path from 'node:path';
import { z } from 'zod';

/** What an agent session may write. */
export const FILESYSTEM_MODES = ['project', 'read-only', 'off'] as const;
export type FilesystemMode = (typeof FILESYSTEM_MODES)[number];

/**
 * Package managers' caches, writable by default so `npm install`, `pip install`, `cargo build`
 * work in a sandboxed project (docs/design.md §2.10 says where each comes from). `~/.cache` holds
 * pip's, uv's, yarn 1's, go's build cache and many more on Linux (XDG); macOS keeps them in
 * `~/Library/Caches`.
 */
export function defaultWritable(platform: NodeJS.Platform = process.platform): string[] {
  const common = ['~/.npm', '~/.yarn', '~/.cargo/registry', '~/.cargo/git', '~/go/pkg/mod', '~/.m2', '~/.gradle'];
  if (platform === 'darwin') {
    return [...common, '~/Library/pnpm', '~/Library/Caches/pip', '~/Library/Caches/Yarn', '~/Library/Caches/go-build', '~/.cache'];
  }
  return [...common, '~/.local/share/pnpm', '~/.cache'];
}

/** An absolute path or one in the home folder (`~/…`), as the person writes it. */
const pathEntry = z
  .string()
  .min(1)
  .max(4_096)
  .refine((entry) => entry === '~' || entry.startsWith('~/') || path.isAbsolute(entry), {
    message: 'must be an absolute path or start with ~/ (a relative path would mean a different folder in every session)',
  });

/**
 * A domain agents' sessions may reach when the network is a list: `example.com`, or
 * `*.example.com` for every name under it. No scheme, port or path; `*` alone is `on`.
 */
const DOMAIN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const domainEntry = z
  .string()
  .min(1)
  .max(253)
  .refine((entry) => DOMAIN.test(entry), {
    message: 'must be a domain such as example.com or *.example.com (no scheme, port or path; use "on" for every domain)',
  });

const NetworkSettingSchema = z.union([z.enum(['on', 'off']), z.array(domainEntry).min(1).max(1_000)]);
export type NetworkSetting = z.infer<typeof NetworkSettingSchema>;

export const SandboxSettingsSchema = z
  .object({
    /** `project`: writes only in the session's project folder, temp and `writable`; `read-only`: nowhere lasting; `off`: anywhere but `denied`. */
    filesystem: z.enum(FILESYSTEM_MODES).default('project'),
    /** More folders agents' sessions may write (absolute or `~/…`); default: the package managers' caches. */
    writable: z
      .array(pathEntry)
      .max(1_000)
      .default(() => defaultWritable()),
    /** Paths agents' sessions may neither read nor write (`~/.ssh`, `~/.aws`); the hub's state folder always is. */
    denied: z.array(pathEntry).max(1_000).default([]),
    /** `on`, `off`, or the domains they may reach (through a filtering proxy). */
    network: NetworkSettingSchema.default('on'),
    /** Where no sandbox can start: false opens agents' sessions unsandboxed, with a warning in every result; true refuses them (SPAWN_FAILED). */
    required: z.boolean().default(false),
  })
  .strict();

export type SandboxSettings = z.infer<typeof SandboxSettingsSchema>;

/** The setting's value when settings.json says nothing of it. */
export function defaultSandboxSettings(): SandboxSettings {
  return SandboxSettingsSchema.parse({});
}
