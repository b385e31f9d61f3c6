/** `#session=<id>` in the page's address (the terminal app's link, docs/design.md §3.8) watches that session. */
import { describe, expect, it } from 'vitest';
import { addressCommand } from '../../../renderer/src/addressCommand.js';

describe('addressCommand', () => {
  it('reads the session the link names', () => {
    expect(addressCommand('#session=k3f9q2')).toEqual({ type: 'watch', session: 'k3f9q2' });
    expect(addressCommand('#session=my%20build')).toEqual({ type: 'watch', session: 'my build' });
  });

  it('ignores any other address', () => {
    for (const hash of ['', '#', '#session=', '#sessions=k3f9q2', '#session=a&x=1', '#session=%E0%A4%A', `#session=${'a'.repeat(129)}`]) {
      expect(addressCommand(hash), hash).toBeNull();
    }
  });
});
