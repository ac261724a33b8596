#!/usr/bin/env python3
"""Writes test/fixtures/toolbox/bidi.json: what IBM's Toolbox for Java reads from CCSID 420 and 424 bytes
(visual order, 420 shaped) and writes for logical text, through scripts/toolbox/BidiSamples.java.

Needs a JDK and Debian's libjt400-java (apt-get install -y default-jdk libjt400-java); npm test reads
only the committed file. The inputs are seeded: texts a DBA's files hold (words, numbers, prices,
brackets, lam-alef, the letters 420 writes with a tail) and random byte strings of each table.
"""
import random
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JT400 = Path("/usr/share/java/jt400.jar")
OUT = ROOT / "test" / "fixtures" / "toolbox" / "bidi.json"
TABLES = ROOT / "test" / "fixtures" / "toolbox" / "tables.txt"

HEBREW = [chr(c) for c in range(0x5D0, 0x5EB)]
ARABIC = [chr(c) for c in (*range(0x621, 0x63B), *range(0x640, 0x64B))] + ["\u0644"] * 3
COMMON = list("abcXYZ0123456789      .,:-+()[]/%$#!?\"'")
CHOSEN = {
    424: ["שלום עולם 123", "מחיר: 12.50", "1,234.50 ש\"ח", "קוד ABC-123 נשלח", "a (b) ג [ד]", "(שלום)",
          "שלום, עולם!", "רחוב הרצל 12, תל אביב", "מחיר 100 € ₪"],
    420: ["مرحبا ١٢٣", "السلام عليكم", "محمد 123", "abc مرحبا def", "(سلام)", "لأ لإ لآ", "شكرا جزيلا",
          "مدرسة", "فى", "ئ", "بئب", "بّب", "دَ", "شارع الملك فهد، الرياض", "سعر ٥٠ ريال"],
}


def table_bytes(ccsid):
    codes, current = [], None
    for line in TABLES.read_text("utf-8").splitlines():
        if line.startswith(("single ", "double ", "mixed ")):
            current = line.split()[1] if line.startswith("single ") else None
        elif current == str(ccsid) and not line.startswith("#"):
            head, *points = line.split()
            code, _, run = head.partition("+")
            if points != ["1A"]:
                codes += range(int(code, 16), int(code, 16) + int(run or 1))
    return [c for c in codes if c >= 0x40]


def lines():
    rng = random.Random(7)
    word = lambda letters: "".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))
    for ccsid, letters in ((424, HEBREW), (420, ARABIC)):
        for text in CHOSEN[ccsid]:
            yield f"{ccsid}\twrite\t{text}"
        for _ in range(300):
            parts = [word(letters) if rng.random() < 0.5 else word(COMMON) for _ in range(rng.randint(1, 5))]
            yield f"{ccsid}\twrite\t{' '.join(parts)}"
        codes = table_bytes(ccsid)
        for _ in range(300):
            yield f"{ccsid}\tread\t" + "".join(f"{rng.choice(codes):02X}" for _ in range(rng.randint(1, 12)))


def main():
    java = shutil.which("java")
    if not java or not JT400.exists():
        raise SystemExit("needs a JDK and IBM's Toolbox for Java: apt-get install -y default-jdk libjt400-java")
    done = subprocess.run([java, "-cp", str(JT400), str(ROOT / "scripts" / "toolbox" / "BidiSamples.java")],
                          input="\n".join(lines()) + "\n", capture_output=True, text=True, encoding="utf-8", check=True)
    OUT.write_text(done.stdout, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


main()
