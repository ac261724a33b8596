// The source's keys seen by a verify, as 64-bit hashes in one growing typed array (8 bytes a row, so
// ten million rows take 80 MB, not a Set of strings), sorted once for look-ups. A target key whose hash
// is not here is an extra candidate, confirmed by reading the source by key (a collision could only
// hide an extra, with a chance of one in 2^64 per row).
import { createHash } from 'node:crypto';

export function keyHash(text: string): bigint {
  return createHash('md5').update(text).digest().readBigUInt64BE(0);
}

export class KeySet {
  private hashes = new BigUint64Array(1024);
  private size = 0;
  private sorted = true;

  add(text: string): void {
    if (this.size === this.hashes.length) {
      const grown = new BigUint64Array(Math.max(1024, this.hashes.length * 2));
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[this.size++] = keyHash(text);
    this.sorted = false;
  }

  has(text: string): boolean {
    if (!this.sorted) {
      this.hashes = this.hashes.slice(0, this.size).sort();
      this.sorted = true;
    }
    const h = keyHash(text);
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.hashes[mid] as bigint;
      if (v === h) return true;
      if (v < h) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  get count(): number {
    return this.size;
  }
}
