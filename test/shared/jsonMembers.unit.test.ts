// Duplicate member names in a JSON text: found in any object at any depth, compared as JSON compares
// names (after unescaping), named with the JSON Pointer of their object; never in a text without one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { duplicateMember, duplicateMemberText } from '../../shared/jsonMembers';
import { testSeed } from '../helpers/seed';

const seedOf = testSeed('jsonMembers');

describe('duplicateMember', () => {
  it('finds a name given twice at the top, in a nested object and in an array', () => {
    expect(duplicateMember('{"hostCredentials":{},"hostCredentials":{}}')).toEqual({
      member: 'hostCredentials',
      pointer: '',
    });
    expect(
      duplicateMember('{"hostCredentials":{"connectionName":"a","host":"h","connectionName":"b"}}'),
    ).toEqual({ member: 'connectionName', pointer: '/hostCredentials' });
    expect(duplicateMember('{"entities":[{"a":1},{"source":{"s":1,"t":2,"s":3}}]}')).toEqual({
      member: 's',
      pointer: '/entities/1/source',
    });
  });

  it('compares names unescaped, and escapes / and ~ in the pointer', () => {
    expect(duplicateMember('{"a/b~":{"x":1,"\\u0078":2}}')).toEqual({ member: 'x', pointer: '/a~1b~0' });
    expect(duplicateMember('{"q\\"":1,"q\\u0022":2}')).toEqual({ member: 'q"', pointer: '' });
  });

  it('does not take values, strings holding structure, or names in sibling objects for names', () => {
    expect(
      duplicateMember('{"a":"a","b":"{\\"a\\":1,\\"a\\":2}","c":["a","a"],"d":{"a":1},"e":{"a":2}}'),
    ).toBeNull();
    expect(duplicateMember('[{"a":1},{"a":1}]')).toBeNull();
    expect(duplicateMember('"x"')).toBeNull();
  });

  it('finds none in any text JSON.stringify writes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(duplicateMember(JSON.stringify(value))).toBeNull();
      }),
      { numRuns: 500, seed: seedOf('stringify') },
    );
  });

  it('says the name, where, and what to do', () => {
    expect(duplicateMemberText({ member: 'connectionName', pointer: '/hostCredentials' })).toBe(
      'The member "connectionName" appears twice in the object at /hostCredentials: send each member once, since readers of JSON disagree on which value counts.',
    );
    expect(duplicateMemberText({ member: 'id', pointer: '' })).toContain('at the top of the body');
  });
});
