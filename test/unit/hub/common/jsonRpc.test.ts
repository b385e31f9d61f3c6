import { describe, expect, it } from 'vitest';
import { INVALID_REQUEST, PARSE_ERROR, classifyLine, envelopeError, recoverId } from '../../../../src/hub/common/jsonRpc.js';

describe('classifyLine', () => {
  it('tells requests, notifications and responses apart', () => {
    expect(classifyLine('{"jsonrpc":"2.0","id":1,"method":"ping"}').kind).toBe('request');
    expect(classifyLine('{"jsonrpc":"2.0","method":"notifications/initialized"}').kind).toBe('notification');
    expect(classifyLine('{"jsonrpc":"2.0","id":"a","result":{}}').kind).toBe('response');
    expect(classifyLine('{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}').kind).toBe('response');
  });

  it('answers non-JSON with -32700 and id null, without echoing the input', () => {
    const result = classifyLine('secret-ish garbage {');
    expect(result).toMatchObject({ kind: 'invalid', replies: [{ id: null, error: { code: PARSE_ERROR } }] });
    expect(JSON.stringify(result)).not.toContain('garbage');
  });

  it('answers invalid JSON-RPC with -32600, keeping the id when there is one', () => {
    expect(classifyLine('{"id":7,"method":"tools/list"}')).toMatchObject({ kind: 'invalid', replies: [{ id: 7, error: { code: INVALID_REQUEST } }] });
    expect(classifyLine('{"jsonrpc":"1.0","id":"x","method":"a"}')).toMatchObject({ replies: [{ id: 'x' }] });
    expect(classifyLine('{"jsonrpc":"2.0","id":3,"method":5}')).toMatchObject({ replies: [{ id: 3, error: { code: INVALID_REQUEST } }] });
    expect(classifyLine('{"jsonrpc":"2.0","id":{"a":1},"method":"a"}')).toMatchObject({ replies: [{ id: null }] });
    expect(classifyLine('{"jsonrpc":"2.0","id":null,"method":"a"}')).toMatchObject({ kind: 'invalid' });
    expect(classifyLine('42')).toMatchObject({ replies: [{ id: null, error: { code: INVALID_REQUEST } }] });
    expect(classifyLine('{"jsonrpc":"2.0","id":4}')).toMatchObject({ replies: [{ id: 4 }] });
  });

  it('refuses batches, answering each member that has an id', () => {
    expect(classifyLine('[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"b","method":"c"}]')).toMatchObject({
      kind: 'invalid',
      replies: [
        { id: 1, error: { code: INVALID_REQUEST } },
        { id: 'b', error: { code: INVALID_REQUEST } },
      ],
    });
    expect(classifyLine('[]')).toMatchObject({ replies: [{ id: null, error: { code: INVALID_REQUEST } }] });
  });
});

describe('envelopeError: the one envelope check of the shim and the HTTP path', () => {
  const cases = [
    '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":"b","method":"c"}]',
    '[]',
    '42',
    '"x"',
    '{"jsonrpc":"1.0","id":"x","method":"a"}',
    '{"id":7,"method":"a"}',
  ];

  it.each(cases)('refuses %s with the same answer per line and per request, but for the unit named', (text) => {
    const perLine = classifyLine(text);
    const perRequest = envelopeError(JSON.parse(text), 'request');
    expect(perLine.kind).toBe('invalid');
    expect(perRequest).toBeDefined();
    const same = JSON.stringify([perRequest].flat()).replaceAll('per request', 'per line');
    expect(perLine.kind === 'invalid' && JSON.stringify(perLine.replies)).toBe(same);
  });

  it('answers a batch with ids as an array (one error per id), anything else as one error', () => {
    expect(envelopeError([{ jsonrpc: '2.0', id: 1, method: 'a' }], 'request')).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: INVALID_REQUEST, message: expect.stringContaining('send one JSON-RPC 2.0 message per request') } },
    ]);
    expect(envelopeError([], 'request')).toMatchObject({ id: null, error: { code: INVALID_REQUEST } });
    expect(envelopeError({ jsonrpc: '2.0', id: 1, method: 5 }, 'request')).toBeUndefined();
  });
});

describe('recoverId', () => {
  it('finds a top-level id at the head or at the tail only', () => {
    expect(recoverId('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"x":"aaa', '')).toBe(12);
    expect(recoverId('{"id":"abc","method"', '')).toBe('abc');
    expect(recoverId('{"method":"tools/call","params":{"arguments":{"command":"xx', 'xxxx"}},"jsonrpc":"2.0","id":"huge"}')).toBe('huge');
    expect(recoverId('{"method":"x","params":{"id":5,', 'aaa"}}')).toBeNull();
    expect(recoverId('{"method":"x"', '"params":{"id":5}}}')).toBeNull();
    expect(recoverId('garbage', 'garbage')).toBeNull();
  });
});
