// A stream's figures as the pipeline page says them: rate, newest position, size against the limit.
import { describe, expect, it } from 'vitest';
import { bytes, streamText } from '../../shared/format';

describe('a stream’s figures in words', () => {
  it('says the rate, the newest acknowledged position and the size against the limit', () => {
    expect(
      streamText({
        stream: 'CDC',
        eventsPerSecond: 1234.56,
        newestAcknowledged: 'JRNLIB/RCV0042/918273',
        messages: 1_500_000,
        bytes: 805_306_368,
        maxBytes: 1_073_741_824,
      }),
    ).toBe(
      '1234.6 events/s to CDC, acknowledged to JRNLIB/RCV0042/918273; it holds 1,500,000 messages, 768 MiB of 1.0 GiB (75%)',
    );
    expect(
      streamText({
        stream: 'S',
        eventsPerSecond: 0,
        newestAcknowledged: null,
        messages: 0,
        bytes: 0,
        maxBytes: null,
      }),
    ).toBe('0.0 events/s to S, nothing acknowledged yet; it holds 0 messages, 0 B (no size limit)');
  });

  it('writes sizes in binary units', () => {
    expect([bytes(512), bytes(1536), bytes(10 * 1024 * 1024), bytes(5 * 1024 ** 4)]).toEqual([
      '512 B',
      '1.5 KiB',
      '10 MiB',
      '5.0 TiB',
    ]);
  });
});
