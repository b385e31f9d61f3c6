/**
 * The names of machines (docs/design.md §4.7): a remote is named by the person (`devbox`), and a
 * remote session's id names its machine, `<remote>:<id>` (`devbox:k3f9q2`), everywhere the local
 * hub shows or takes it. `local` is this machine, so no remote may be called that.
 */

import { LOCAL_HOST } from '../../mcp/hostInput.js';

export { LOCAL_HOST };

/** A remote's name: letters, digits, `.`, `_`, `-`; no `:` (it separates the machine from the id). */
export const REMOTE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

/** Why `name` cannot name a remote, or undefined when it can. */
export function remoteNameProblem(name: string): string | undefined {
  if (!REMOTE_NAME_PATTERN.test(name)) return `"${name}" is not a remote's name: use 1 to 32 letters, digits, ".", "_" or "-", starting with a letter or digit`;
  if (name.toLowerCase() === LOCAL_HOST) return `"${name}" names this machine; call the remote something else`;
  return undefined;
}

/** `devbox:k3f9q2` → `{ host: 'devbox', id: 'k3f9q2' }`; undefined for a ref without a machine. */
export function splitRemoteRef(ref: string): { host: string; id: string } | undefined {
  const colon = ref.indexOf(':');
  if (colon <= 0 || colon === ref.length - 1) return undefined;
  return { host: ref.slice(0, colon), id: ref.slice(colon + 1) };
}

/** The id a remote session has here: `<remote>:<id>`. */
export function remoteRef(host: string, id: string): string {
  return `${host}:${id}`;
}
