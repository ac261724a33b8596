// The source's keys seen by a verify, as 53-bit hashes in one growing typed array (8 bytes a row, so
// ten million rows take 80 MB, not a Set of strings), sorted once for look-ups. A target key whose hash
// is here though the key is not is an extra the verify misses: with n source keys, a chance of n in
// 2^53 for each extra (one in 900 million at ten million rows). A key found missing is confirmed by
// reading the source by key, so no collision can report a difference that is not there.

/**
 * A 53-bit hash of a key's text (cyrb53: two 32-bit multiply-xor lanes mixed at the end): a verify
 * hashes every key of a table, so a cryptographic hash would cost more than comparing its rows.
 */
export function keyHash(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

export class KeySet {
  private hashes = new Float64Array(1024);
  private size = 0;
  private sorted = true;

  add(text: string): void {
    if (this.size === this.hashes.length) {
      const grown = new Float64Array(Math.max(1024, this.hashes.length * 2));
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
      const v = this.hashes[mid] as number;
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
