# Draws the app icon (512x512 PNG): a database drum with a change arrow. Pure Python, no imaging library,
# so anyone can regenerate it: python3 scripts/make-icon.py > build/icon.png
import struct, sys, zlib

SIZE = 512
BG = (13, 59, 102)
DRUM = (235, 240, 247)
RIM = (68, 147, 248)
ARROW = (255, 184, 0)

def pixel(x, y):
    cx, cy = SIZE / 2, SIZE / 2
    # rounded square background
    r = 96
    dx = max(abs(x - cx) - (SIZE / 2 - r), 0)
    dy = max(abs(y - cy) - (SIZE / 2 - r), 0)
    if dx * dx + dy * dy > r * r:
        return (0, 0, 0, 0)
    # drum: body between two ellipses
    left, right, top, bottom = 136, 376, 150, 370
    rx, ry = (right - left) / 2, 34
    ex = (x - cx) / rx
    in_top = ex * ex + ((y - top) / ry) ** 2 <= 1
    in_bottom = ex * ex + ((y - bottom) / ry) ** 2 <= 1
    in_body = left <= x <= right and top <= y <= bottom
    if in_top:
        inner = ex * ex + ((y - top) / (ry - 8)) ** 2 <= 0.82
        return DRUM + (255,) if inner else RIM + (255,)
    if in_body or in_bottom:
        for band in (223, 296):
            ey = ((y - band) / ry) ** 2 + ex * ex
            if 0.86 <= ey <= 1 and y >= band:
                return RIM + (255,)
        return DRUM + (255,)
    # arrow at the lower right
    ax, ay = x - 400, y - 400
    if -60 <= ax <= 10 and -14 <= ay <= 14:
        return ARROW + (255,)
    if 10 <= ax <= 56 and abs(ay) <= (56 - ax) * 0.75:
        return ARROW + (255,)
    return BG + (255,)

rows = b''.join(b'\x00' + b''.join(bytes(pixel(x, y)) for x in range(SIZE)) for y in range(SIZE))
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xFFFFFFFF)
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', SIZE, SIZE, 8, 6, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b'')
sys.stdout.buffer.write(png)
