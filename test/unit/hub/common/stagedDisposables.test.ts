import { describe, expect, it } from 'vitest';
import { StagedDisposables } from '../../../../src/hub/common/stagedDisposables.js';

describe('StagedDisposables', () => {
  it('releases stage by stage in the fixed order, the last registered of a stage first, awaiting each', async () => {
    const parts = new StagedDisposables();
    const order: string[] = [];
    parts.add('state', () => void order.push('lock'));
    parts.add('sessions', async () => {
      await Promise.resolve();
      order.push('manager');
    });
    parts.add('endpoints', () => void order.push('ui'));
    parts.add('state', () => void order.push('hub.json'));
    parts.add('intake', () => void order.push('timer'));
    parts.add('records', () => void order.push('history'));
    parts.add('endpoints', () => void order.push('http'));
    parts.add('sessions', () => void order.push('screens'));
    expect(await parts.dispose()).toEqual([]);
    expect(order).toEqual(['timer', 'http', 'ui', 'screens', 'manager', 'history', 'hub.json', 'lock']);
  });

  it('goes on past a failing release and returns what failed; a second dispose does nothing', async () => {
    const parts = new StagedDisposables();
    const order: string[] = [];
    const boom = new Error('boom');
    parts.add('endpoints', () => void order.push('socket'));
    parts.add('endpoints', () => {
      throw boom;
    });
    parts.add('state', () => Promise.reject(new Error('late')));
    parts.add('state', () => void order.push('hub.json'));
    const errors = await parts.dispose();
    expect(errors.map((error) => (error as Error).message)).toEqual(['boom', 'late']);
    expect(order).toEqual(['socket', 'hub.json']);
    expect(await parts.dispose()).toEqual([]);
    expect(order).toEqual(['socket', 'hub.json']);
  });

  it('releases at once what is added after it was disposed', async () => {
    const parts = new StagedDisposables();
    await parts.dispose();
    let released = false;
    parts.add('sessions', () => {
      released = true;
    });
    expect(released).toBe(true);
  });
});
