/**
 * The pure launch planning of shellIntegration.ts: which `program` + `args` open a shell
 * (docs/design.md §2.5, "a shell is a shell however it is opened"), and what each session is
 * spawned as. Real shells running these plans: test/integration/shellsByName.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NONCE_ENV } from '../../../../src/core/shell/marks.js';
import { assetsDir, planLaunch, planProgramShell, rearmCommand } from '../../../../src/core/shell/shellIntegration.js';

const scripts = join(assetsDir(), 'shell-integration');
const env = { PATH: '/usr/bin:/bin', HOME: '/home/u' };

describe('planProgramShell', () => {
  it('takes a shell by name or path, versioned or not', () => {
    expect(planProgramShell('bash', [])).toEqual({ shell: true, kind: 'bash', login: false });
    expect(planProgramShell('/bin/zsh', [])).toEqual({ shell: true, kind: 'zsh', login: false });
    expect(planProgramShell('/opt/homebrew/bin/fish', [])).toEqual({ shell: true, kind: 'fish', login: false });
    expect(planProgramShell('zsh-5.9', [])).toMatchObject({ shell: true, kind: 'zsh' });
    for (const sh of ['sh', 'dash', '/usr/bin/dash', 'ksh']) expect(planProgramShell(sh, [])).toMatchObject({ shell: true, kind: 'sh' });
  });

  it('keeps it a shell with login and interactive flags only; a login flag makes it a login shell', () => {
    for (const args of [['-l'], ['--login'], ['-il'], ['-li'], ['-l', '-i'], ['--login', '--interactive'], ['-i', '-l']]) {
      expect(planProgramShell('bash', args), args.join(' ')).toEqual({ shell: true, kind: 'bash', login: true });
    }
    for (const args of [['-i'], ['--interactive'], ['-i', '-i']]) {
      expect(planProgramShell('fish', args), args.join(' ')).toEqual({ shell: true, kind: 'fish', login: false });
    }
  });

  it('leaves a program whatever makes the shell run something else or start differently', () => {
    const cases: [string, string[], string][] = [
      ['bash', ['-c', 'echo hi'], '"-c"'],
      ['sh', ['/tmp/script.sh'], '"/tmp/script.sh"'],
      ['bash', ['-l', '-c', 'make'], '"-c"'],
      ['bash', ['-lc', 'make'], '"-lc"'],
      ['bash', ['--norc'], '"--norc"'],
      ['zsh', ['-f'], '"-f"'],
      ['fish', ['--no-config'], '"--no-config"'],
      ['dash', ['-x'], '"-x"'],
      ['bash', ['-o', 'vi'], '"-o"'],
      ['bash', ['-'], '"-"'],
      ['bash', [''], '""'],
    ];
    for (const [program, args, named] of cases) {
      const plan = planProgramShell(program, args);
      expect(plan, `${program} ${args.join(' ')}`).toMatchObject({ shell: false, reason: expect.stringContaining(named) });
    }
  });

  it('leaves programs that are not shells, and busybox (a shell only with an applet argument)', () => {
    for (const program of ['python3', '/usr/bin/vim', 'nu', 'xonsh', 'bashtop', 'busybox', '/bin/busybox']) {
      expect(planProgramShell(program, []), program).toEqual({ shell: false, reason: 'not a shell' });
    }
  });
});

describe('planLaunch', () => {
  const nonce = 'n0nce';

  it('starts the configured shell with its integration and the login setting', () => {
    const plan = planLaunch({ shell: '/bin/bash', login: true, env }, nonce);
    expect(plan).toEqual({
      file: '/bin/bash',
      args: ['--init-file', join(scripts, 'bash.sh'), '-i'],
      env: { ...env, [NONCE_ENV]: nonce, SWITCHBOARD_LOGIN: '1' },
      shellKind: 'bash',
      detection: 'shell_integration',
    });
  });

  it('starts a shell named as program from where it was found, login only when asked', () => {
    const zsh = planLaunch({ program: 'zsh', programPath: '/usr/bin/zsh', args: ['-i'], shell: '/bin/bash', login: true, env }, nonce);
    expect(zsh).toMatchObject({ file: '/usr/bin/zsh', args: ['-i'], shellKind: 'zsh', detection: 'shell_integration' });
    expect(zsh.env).toMatchObject({ ZDOTDIR: join(scripts, 'zsh'), [NONCE_ENV]: nonce });

    const bash = planLaunch({ program: 'bash', programPath: '/usr/bin/bash', args: [], shell: '/usr/bin/zsh', login: true, env }, nonce);
    expect(bash).toMatchObject({ file: '/usr/bin/bash', args: ['--init-file', join(scripts, 'bash.sh'), '-i'], shellKind: 'bash' });
    expect(bash.env).not.toHaveProperty('SWITCHBOARD_LOGIN');

    const fish = planLaunch({ program: '/usr/bin/fish', programPath: '/usr/bin/fish', args: ['--login'], shell: '/bin/bash', login: false, env }, nonce);
    expect(fish).toMatchObject({ file: '/usr/bin/fish', shellKind: 'fish' });
    expect(fish.args.slice(0, 2)).toEqual(['--login', '--interactive']);

    const dash = planLaunch({ program: 'dash', programPath: '/usr/bin/dash', args: ['-l'], shell: '/bin/bash', login: false, env }, nonce);
    expect(dash).toMatchObject({ file: '/usr/bin/dash', args: ['-l', '-i'], shellKind: 'sh', detection: 'command_wrapper' });
    expect(dash.env).toMatchObject({ ENV: join(scripts, 'sh.sh'), [NONCE_ENV]: nonce });
  });

  it('runs any other program as given, without the nonce, saying why execute will not work in it', () => {
    const plan = planLaunch({ program: 'bash', programPath: '/usr/bin/bash', args: ['-c', 'make'], shell: '/bin/bash', login: true, env }, nonce);
    expect(plan).toEqual({
      file: 'bash',
      args: ['-c', 'make'],
      env,
      shellKind: null,
      detection: 'command_wrapper',
      notShell: expect.stringContaining('"-c"'),
    });
  });
});

describe('rearmCommand', () => {
  it("sources each hooked shell's script with the nonce and the status before it, after a space; none for sh", () => {
    expect(rearmCommand('bash', 'n1')).toBe(` builtin source '${join(scripts, 'bash.sh')}' --rearm n1 $?`);
    expect(rearmCommand('zsh', 'n1')).toBe(` builtin source '${join(scripts, 'zsh', 'integration.zsh')}' --rearm n1 $?`);
    expect(rearmCommand('fish', 'n1')).toBe(` source '${join(scripts, 'fish.fish')}' --rearm n1 $status`);
    expect(rearmCommand('sh', 'n1')).toBeNull();
    expect(() => rearmCommand('bash', 'n1; rm -rf ~')).toThrow(/nonce/);
  });
});
