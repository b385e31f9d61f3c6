import { describe, expect, it } from 'vitest';
import { DEFAULT_PREFS, loadPrefs, parsePrefs, PREFS_KEY, savePrefs, type PrefsStorage } from '../../../renderer/src/prefs.js';

class MemoryStorage implements PrefsStorage {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

const refusing: PrefsStorage = {
  getItem: () => {
    throw new Error('SecurityError');
  },
  setItem: () => {
    throw new Error('QuotaExceededError');
  },
};

describe('the page preferences', () => {
  it('are the defaults when nothing is stored, or what is stored is not JSON or not an object', () => {
    for (const stored of [null, '', 'not json', 'null', '42', '"text"', '[]']) expect(parsePrefs(stored)).toEqual(DEFAULT_PREFS);
    expect(DEFAULT_PREFS).toEqual({ fontSize: 13, groupMode: 'agent', confirmTakeOver: true, timelineOpen: true });
  });

  it('keep each stored choice that is one of the offered ones, and default the rest one by one', () => {
    expect(parsePrefs(JSON.stringify({ fontSize: 15, groupMode: 'folder', confirmTakeOver: false, timelineOpen: false }))).toEqual({
      fontSize: 15,
      groupMode: 'folder',
      confirmTakeOver: false,
      timelineOpen: false,
    });
    expect(parsePrefs(JSON.stringify({ fontSize: 40, groupMode: 'project', confirmTakeOver: 'no', timelineOpen: 0 }))).toEqual(DEFAULT_PREFS);
    // A size written as a string (an older page) still counts.
    expect(parsePrefs(JSON.stringify({ fontSize: '11' })).fontSize).toBe(11);
  });

  it('round-trip through the storage under their key', () => {
    const storage = new MemoryStorage();
    const prefs = { fontSize: 12, groupMode: 'folder', confirmTakeOver: false, timelineOpen: true } as const;
    savePrefs(storage, prefs);
    expect([...storage.items.keys()]).toEqual([PREFS_KEY]);
    expect(loadPrefs(storage)).toEqual(prefs);
  });

  it('work without a storage, or with one that refuses (the choice lasts for the page)', () => {
    expect(loadPrefs(null)).toEqual(DEFAULT_PREFS);
    expect(loadPrefs(refusing)).toEqual(DEFAULT_PREFS);
    expect(() => savePrefs(refusing, DEFAULT_PREFS)).not.toThrow();
    expect(() => savePrefs(null, DEFAULT_PREFS)).not.toThrow();
  });
});
