/** Which command `switchboard ui` opens the link with: $BROWSER as Python's webbrowser reads it, else open / xdg-open. */
import { describe, expect, it } from 'vitest';
import { browserCommands } from '../../../src/commands/ui.js';

const URL = 'http://127.0.0.1:7391/?login=abc';

describe('browserCommands', () => {
  it('uses open on macOS and xdg-open elsewhere when $BROWSER is unset or blank', () => {
    expect(browserCommands(URL, {}, 'darwin')).toEqual([{ file: 'open', args: [URL] }]);
    expect(browserCommands(URL, {}, 'linux')).toEqual([{ file: 'xdg-open', args: [URL] }]);
    expect(browserCommands(URL, { BROWSER: ' : ' }, 'linux')).toEqual([{ file: 'xdg-open', args: [URL] }]);
  });

  it('reads $BROWSER as a colon-separated list, %s standing for the link, else the link appended', () => {
    expect(browserCommands(URL, { BROWSER: 'firefox' }, 'linux')).toEqual([{ file: 'firefox', args: [URL] }]);
    expect(browserCommands(URL, { BROWSER: 'w3m:"/opt/My Browser/run" --new-tab %s --x' }, 'darwin')).toEqual([
      { file: 'w3m', args: [URL] },
      { file: '/opt/My Browser/run', args: ['--new-tab', URL, '--x'] },
    ]);
    expect(browserCommands(URL, { BROWSER: "chromium '--app=%s'" }, 'linux')).toEqual([{ file: 'chromium', args: [`--app=${URL}`] }]);
  });
});
