// The sign-on memo stands for exactly the credentials it was tried with, for a while, and holds no
// credential in the clear.
import { describe, expect, it } from 'vitest';
import { createSignOnMemo, SIGN_ON_KEPT_MS } from '../../../main/engine/signOnMemo';
import type { CheckResult } from '../../../shared/controlApi';

const failed: CheckResult = {
  id: 'connection',
  status: 'failed',
  message: 'Login failed (18456)',
  remedy: null,
};

describe('the sign-on memo', () => {
  it('recalls a sign-on for the same credentials in any key order, and for no others', () => {
    let now = Date.parse('2026-12-02T06:00:00Z');
    const memo = createSignOnMemo(() => new Date(now));
    memo.remember('p', 'a', { host: 'h', user: 'u', password: 'secret-1' }, failed);
    expect(memo.recall('p', 'a', { password: 'secret-1', user: 'u', host: 'h' })).toEqual(failed);
    expect(memo.recall('p', 'a', { host: 'h', user: 'u', password: 'secret-2' })).toBeUndefined();
    expect(memo.recall('p', 'b', { host: 'h', user: 'u', password: 'secret-1' })).toBeUndefined();
    expect(JSON.stringify(memo)).not.toContain('secret-1');
    now += SIGN_ON_KEPT_MS + 1;
    expect(memo.recall('p', 'a', { host: 'h', user: 'u', password: 'secret-1' })).toBeUndefined();
  });
});
