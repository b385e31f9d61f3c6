/**
 * The seccomp program the Linux sandbox loads through bubblewrap's `--seccomp` (docs/design.md
 * §2.10): a sandboxed process may not open a unix socket (`socket(AF_UNIX, …)`) or a VM socket
 * (`AF_VSOCK`: no network namespace fences it) nor use io_uring (whose requests can open one
 * without that syscall). A unix socket is how it would reach a
 * process outside: the desktop bus (`systemd-run --user` starts anything), an X11 or Wayland
 * display (typing into the person's other windows), docker's or an ssh agent's socket; files
 * cannot hide them all, and an abstract socket has no file at all. `socketpair` stays allowed:
 * it reaches no one.
 *
 * Classic BPF, as the kernel takes it: `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k }`,
 * little-endian. Written for x86_64 (with i386 and x32) and aarch64 (with arm); elsewhere no
 * program is made and the sandbox says so.
 */

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const AF_UNIX = 1;
const AF_VSOCK = 40;
/** Offsets in `struct seccomp_data`: nr, arch, then args[6] as u64 (low word first, little-endian). */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

const IO_URING = [425, 426, 427]; // io_uring_setup, _enter, _register: one number on every arch

interface Abi {
  arch: number;
  socket: number;
  /** Syscalls refused whatever their arguments. */
  refused: number[];
}

/** The ABIs a process on this machine's kernel can call through. */
const ABIS: Partial<Record<string, Abi[]>> = {
  x64: [
    { arch: 0xc000003e, socket: 41, refused: IO_URING }, // x86_64 (x32 below)
    // i386: socketcall(2) carries its domain in memory the filter cannot read, so it is refused.
    { arch: 0x40000003, socket: 359, refused: [102, ...IO_URING] },
  ],
  arm64: [
    { arch: 0xc00000b7, socket: 198, refused: IO_URING },
    { arch: 0x40000028, socket: 281, refused: IO_URING }, // arm (EABI)
  ],
};
/** x32 calls come in with the x86_64 arch and this bit set in the number. */
const X32_BIT = 0x40000000;

type Insn = { code: number; k: number; jt?: string; jf?: string } | { label: string };

/** The program for `arch` (`process.arch`), or null where it is not written. */
export function unixSocketFilter(arch: string = process.arch): Buffer | null {
  const abis = ABIS[arch];
  if (!abis) return null;
  const program: Insn[] = [{ code: BPF_LD_W_ABS, k: ARCH }];
  abis.forEach((abi, i) => program.push({ code: BPF_JEQ_K, k: abi.arch, jt: `abi${i}` }));
  program.push({ code: BPF_RET_K, k: SECCOMP_RET_ERRNO | EPERM }); // an ABI not listed: nothing runs
  abis.forEach((abi, i) => {
    program.push({ label: `abi${i}` }, { code: BPF_LD_W_ABS, k: NR });
    const numbers = [abi.socket, ...abi.refused];
    if (arch === 'x64' && i === 0) program.push({ code: BPF_JGE_K, k: X32_BIT, jt: 'x32' });
    program.push({ code: BPF_JEQ_K, k: abi.socket, jt: 'socket' });
    for (const nr of abi.refused) program.push({ code: BPF_JEQ_K, k: nr, jt: 'refuse' });
    program.push({ code: BPF_RET_K, k: SECCOMP_RET_ALLOW });
    if (arch === 'x64' && i === 0) {
      program.push({ label: 'x32' });
      program.push({ code: BPF_JEQ_K, k: X32_BIT | numbers[0]!, jt: 'socket' });
      for (const nr of abi.refused) program.push({ code: BPF_JEQ_K, k: X32_BIT | nr, jt: 'refuse' });
      program.push({ code: BPF_RET_K, k: SECCOMP_RET_ALLOW });
    }
  });
  program.push(
    { label: 'socket' },
    { code: BPF_LD_W_ABS, k: ARG0_LOW },
    { code: BPF_JEQ_K, k: AF_UNIX, jt: 'refuse' },
    { code: BPF_JEQ_K, k: AF_VSOCK, jt: 'refuse' },
    { code: BPF_RET_K, k: SECCOMP_RET_ALLOW },
    { label: 'refuse' },
    { code: BPF_RET_K, k: SECCOMP_RET_ERRNO | EPERM },
  );
  return assemble(program);
}

/** Labels resolved to forward jumps (BPF jumps only forward, by at most 255 instructions). */
function assemble(program: readonly Insn[]): Buffer {
  const labels = new Map<string, number>();
  const code: Exclude<Insn, { label: string }>[] = [];
  for (const insn of program) {
    if ('label' in insn) labels.set(insn.label, code.length);
    else code.push(insn);
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((insn, index) => {
    const jump = (label: string | undefined): number => {
      if (label === undefined) return 0;
      const target = labels.get(label);
      if (target === undefined || target <= index || target - index - 1 > 255) throw new Error(`seccomp: bad jump to ${label}`);
      return target - index - 1;
    };
    out.writeUInt16LE(insn.code, index * 8);
    out.writeUInt8(jump(insn.jt), index * 8 + 2);
    out.writeUInt8(jump(insn.jf), index * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, index * 8 + 4);
  });
  return out;
}
