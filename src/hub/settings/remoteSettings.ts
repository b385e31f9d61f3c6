import { z } from 'zod';
import { remoteNameProblem } from './remoteNames.js';

/** What runs on a remote when its entry names nothing else: `switchboard` on its PATH. */
export const DEFAULT_REMOTE_COMMAND = 'switchboard';

/**
 * An ssh destination as ssh takes it: `host`, `user@host`, a `~/.ssh/config` alias, or
 * `ssh://user@host:port`. Never an option (`-oProxyCommand=…` would run a command here) and
 * never more than one word.
 */
const destination = z
  .string()
  .min(1)
  .max(512)
  .refine((value) => !value.startsWith('-'), 'an ssh destination cannot start with "-"')
  .refine((value) => !/[\s\u0000-\u001f\u007f]/.test(value), 'an ssh destination has no spaces or control characters');

/**
 * One remote machine (docs/design.md §4.7): reached with the system's ssh, in batch mode, as the
 * person's ssh reaches it (their keys, agent, `~/.ssh/config`, jump hosts).
 */
export const RemoteEntrySchema = z
  .object({
    /** What the person calls it: sessions there are `<name>:<id>` here. */
    name: z.string().superRefine((name, context) => {
      const problem = remoteNameProblem(name);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
    destination,
    /**
     * How Switchboard is started there, run by the remote's login shell as ssh runs any command
     * (`link` is added): a path (`/opt/switchboard/bin/switchboard`) where it is not on the PATH
     * a non-interactive shell gets. Default `switchboard`.
     */
    command: z
      .string()
      .min(1)
      .max(4_096)
      .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), 'the command has no control characters (no newline)')
      .optional(),
    /** An ssh_config file to use instead of `~/.ssh/config` (`ssh -F`), absolute. */
    sshConfig: z
      .string()
      .min(1)
      .max(4_096)
      .refine((value) => value.startsWith('/'), 'sshConfig is an absolute path')
      .optional(),
  })
  .strict();
export type RemoteEntry = z.infer<typeof RemoteEntrySchema>;

/** The `remotes` setting: machines by name, each named once. */
export const RemotesSchema = z
  .array(RemoteEntrySchema)
  .max(64)
  .superRefine((remotes, context) => {
    const seen = new Set<string>();
    remotes.forEach((remote, index) => {
      if (seen.has(remote.name)) context.addIssue({ code: 'custom', message: `"${remote.name}" names two remotes`, path: [index, 'name'] });
      seen.add(remote.name);
    });
  });
