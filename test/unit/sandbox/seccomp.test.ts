/**
 * The unix-socket filter (src/sandbox/seccomp.ts), run through a classic-BPF interpreter here: the
 * answer for each call the kernel would hand it. That the kernel loads and applies it is shown in
 * test/integration/sandbox.test.ts (a unix socket refused, a socket pair allowed).
 */
import { describe, expect, it } from 'vitest';
import { unixSocketFilter } from '../../../src/sandbox/seccomp.js';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const X86_64 = 0xc000003e;
const I386 = 0x40000003;
const AARCH64 = 0xc00000b7;
const ARM = 0x40000028;

/** Runs the program on `struct seccomp_data { nr, arch, ip, args[6] }` (only what it reads). */
function run(program: Buffer, data: { nr: number; arch: number; arg0?: number }): number {
  const word = (offset: number): number => {
    if (offset === 0) return data.nr >>> 0;
    if (offset === 4) return data.arch >>> 0;
    if (offset === 16) return (data.arg0 ?? 0) >>> 0;
    throw new Error(`the filter read offset ${offset}, which this test does not model`);
  };
  let a = 0;
  for (let pc = 0; pc < program.length / 8; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) a = word(k);
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected instruction ${code.toString(16)}`);
  }
  throw new Error('the program ran off its end');
}

describe('unixSocketFilter', () => {
  it('x64: refuses unix and VM sockets and io_uring, allows the rest', () => {
    const program = unixSocketFilter('x64')!;
    expect(program.length % 8).toBe(0);
    expect(run(program, { arch: X86_64, nr: 41, arg0: 1 })).toBe(EPERM); // socket(AF_UNIX)
    expect(run(program, { arch: X86_64, nr: 41, arg0: 40 })).toBe(EPERM); // socket(AF_VSOCK)
    expect(run(program, { arch: X86_64, nr: 41, arg0: 2 })).toBe(ALLOW); // socket(AF_INET)
    expect(run(program, { arch: X86_64, nr: 41, arg0: 10 })).toBe(ALLOW); // socket(AF_INET6)
    expect(run(program, { arch: X86_64, nr: 53, arg0: 1 })).toBe(ALLOW); // socketpair(AF_UNIX)
    for (const nr of [425, 426, 427]) expect(run(program, { arch: X86_64, nr })).toBe(EPERM); // io_uring
    expect(run(program, { arch: X86_64, nr: 0 })).toBe(ALLOW); // read
    // x32 numbers carry bit 30 on the x86_64 ABI
    expect(run(program, { arch: X86_64, nr: 0x40000000 | 41, arg0: 1 })).toBe(EPERM);
    expect(run(program, { arch: X86_64, nr: 0x40000000 | 41, arg0: 2 })).toBe(ALLOW);
    expect(run(program, { arch: X86_64, nr: 0x40000000 | 425 })).toBe(EPERM);
    // i386: socketcall hides its domain in memory, so it is refused; socket(2) is judged
    expect(run(program, { arch: I386, nr: 102 })).toBe(EPERM);
    expect(run(program, { arch: I386, nr: 359, arg0: 1 })).toBe(EPERM);
    expect(run(program, { arch: I386, nr: 359, arg0: 2 })).toBe(ALLOW);
    // an ABI it does not know runs nothing
    expect(run(program, { arch: AARCH64, nr: 0 })).toBe(EPERM);
  });

  it('arm64: the same with its numbers, arm (EABI) too', () => {
    const program = unixSocketFilter('arm64')!;
    expect(run(program, { arch: AARCH64, nr: 198, arg0: 1 })).toBe(EPERM);
    expect(run(program, { arch: AARCH64, nr: 198, arg0: 2 })).toBe(ALLOW);
    expect(run(program, { arch: AARCH64, nr: 425 })).toBe(EPERM);
    expect(run(program, { arch: AARCH64, nr: 63 })).toBe(ALLOW);
    expect(run(program, { arch: ARM, nr: 281, arg0: 1 })).toBe(EPERM);
    expect(run(program, { arch: ARM, nr: 281, arg0: 2 })).toBe(ALLOW);
    expect(run(program, { arch: X86_64, nr: 0 })).toBe(EPERM);
  });

  it('writes none where its numbers are not known (the session then says unix sockets are not refused)', () => {
    expect(unixSocketFilter('riscv64')).toBeNull();
  });
});
