/** One row of the OS process table, as Linux (/proc) and macOS (`ps`) report it alike. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** Session id; undefined on macOS, where `ps` cannot report a usable one. */
  sid: number | undefined;
  /** Controlling terminal (Linux: tty_nr as decimal, macOS: tty name); '' when none. */
  tty: string;
  /** Foreground process group of the controlling terminal; <= 0 when none. */
  tpgid: number;
  /** One-letter state; 'Z' (zombie) and 'X' (dead) are not alive. */
  state: string;
  /** Opaque start time: with pid, it names a process uniquely even after the pid is recycled. */
  startTime: string;
}

export function isAlive(info: ProcessInfo): boolean {
  return info.state !== 'Z' && info.state !== 'X';
}
