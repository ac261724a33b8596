#!/usr/bin/env python3
"""Generates the CCSID tables the journal agent decodes IBM i text with, from ICU's IBM converters.

ICU carries IBM's own CDRA mapping tables (ibm-37_P100-1995, ibm-939_P120-1999, …); Debian's
`icu-devtools` gives its `uconv`, which this script drives, so every table is what ICU decodes, byte
for byte. Writes:

- lib/ibmi/ccsidTables.ts: single-byte tables (256 characters per CCSID, also the
  single-byte halves of the mixed CCSIDs), the double-byte tables (deflated, base64) and the mixed
  CCSIDs' pairs of halves;
- test/fixtures/ccsid-samples.json: sample texts per CCSID with the bytes ICU encodes them to, which the
  tests decode (bytes from the authoritative converter, never from our own encoder).

`python3 scripts/gen-ccsid.py` rebuilds both; `--check` exits 1 when the committed files are stale.
"""
import array
import base64
import json
import pathlib
import subprocess
import sys
import zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
TABLES = ROOT / "lib" / "ibmi" / "ccsidTables.ts"
SAMPLES = ROOT / "test" / "fixtures" / "ccsid-samples.json"
SO, SI, LF = 0x0E, 0x0F, 0x25

# Single-byte EBCDIC CCSIDs and ICU's converter for each.
SBCS = {
    37: "ibm-37_P100-1995", 273: "ibm-273_P100-1995", 277: "ibm-277_P100-1995",
    278: "ibm-278_P100-1995", 280: "ibm-280_P100-1995", 284: "ibm-284_P100-1995",
    285: "ibm-285_P100-1995", 290: "ibm-290_P100-1995", 297: "ibm-297_P100-1995",
    420: "ibm-420_X120-1999", 424: "ibm-424_P100-1995", 500: "ibm-500_P100-1995",
    838: "ibm-838_P100-1995", 870: "ibm-870_P100-1995", 871: "ibm-871_P100-1995",
    875: "ibm-875_P100-1995", 1025: "ibm-1025_P100-1995", 1026: "ibm-1026_P100-1995",
    1047: "ibm-1047_P100-1995",
    **{c: f"ibm-{c}_P100-1997" for c in range(1140, 1150)},
}
# Mixed CCSIDs: ICU's converter, and the CCSIDs of their single- and double-byte halves (IBM's CDRA
# pairs). ICU has no standalone converter for 1027, 833, 836, 28709, 5123 or the double-byte 300, 4396,
# 834, 835, 837, 16684, so those tables are the halves of the mixed converters that hold them.
MIXED = {
    930: ("ibm-930_P120-1999", 290, 300),
    939: ("ibm-939_P120-1999", 1027, 300),
    5026: ("ibm-5026", 290, 4396),
    5035: ("ibm-5035", 1027, 4396),
    1399: ("ibm-1399_P110-2003", 5123, 16684),
    1390: ("ibm-1390_P110-2003", 8482, 16684),
    933: ("ibm-933_P110-1995", 833, 834),
    935: ("ibm-935_P110-1999", 836, 837),
    937: ("ibm-937_P110-1999", 28709, 835),
}


def uconv(args, data):
    return subprocess.run(["uconv", *args], input=data, capture_output=True, check=True).stdout


def decode(converter, data):
    # An illegal or unmapped sequence comes out as ICU's escape (%Xhh), never as a guessed character.
    return uconv(["-f", converter, "-t", "utf-8", "--from-callback", "escape-icu"], data).decode("utf-8")


def encode(converter, text):
    return uconv(["-f", "utf-8", "-t", converter, "--to-callback", "stop"], text.encode("utf-8"))


def single_byte(converter, stateful):
    codes = [b for b in range(256) if not (stateful and b in (SO, SI))]
    # Each byte followed by a line feed (0x25): a character or ICU's escape of an unmapped byte, then "\n".
    text = decode(converter, b"".join(bytes([b, LF]) for b in codes))
    table = ["\ufffd"] * 256
    at = 0
    for b in codes:
        if text.startswith("%X", at):
            at += 4
        else:
            table[b] = text[at]
            at += 1
        assert text[at] == "\n", (converter, hex(b))
        at += 1
    assert at == len(text), converter
    return "".join(table)


def double_byte(converter):
    pairs = [(lead, trail) for lead in range(0x40, 0xFF) for trail in range(0x40, 0xFF)]
    data = b"".join(bytes([SO, lead, trail, SI, LF]) for lead, trail in pairs)
    lines = decode(converter, data).split("\n")[:-1]
    assert len(lines) == len(pairs), converter
    return {(lead << 8) | trail: s for (lead, trail), s in zip(pairs, lines) if "%X" not in s}


def pack_double_byte(mapping):
    """65,536 UTF-16 units; 0xFFFD unmapped, 0xFFFF 'see extras' (a character beyond the BMP, or two)."""
    units = array.array("H", [0xFFFD] * 65536)
    extras = {}
    for code, s in mapping.items():
        if len(s) == 1 and ord(s) < 0x10000:
            units[code] = ord(s)
        else:
            units[code] = 0xFFFF
            extras[code] = s
    if sys.byteorder != "little":
        units.byteswap()
    return base64.b64encode(zlib.compress(units.tobytes(), 9)).decode("ascii"), extras


def tables_source():
    single = {c: single_byte(conv, False) for c, conv in SBCS.items()}
    doubles = {}
    mixed = {}
    for ccsid, (conv, sbcs, dbcs) in MIXED.items():
        half = single_byte(conv, True)
        if sbcs in single:
            # The mixed converter's single-byte half must be the standalone CCSID's table.
            assert all(a == b for a, b in zip(half, single[sbcs]) if a != "\ufffd"), (ccsid, sbcs)
        else:
            single[sbcs] = half
        table = double_byte(conv)
        assert doubles.get(dbcs, table) == table, (ccsid, dbcs)
        doubles[dbcs] = table
        mixed[ccsid] = (sbcs, dbcs)
    lines = [
        "// Generated by scripts/gen-ccsid.py from ICU's IBM converters (uconv): do not edit.",
        "// SINGLE_BYTE: the Unicode character of bytes 0x00 to 0xFF. DOUBLE_BYTE: 65,536 UTF-16 units,",
        "// little-endian, deflated, base64 (0xFFFD unmapped, 0xFFFF: the character is in extras). MIXED:",
        "// the single- and double-byte CCSIDs a mixed CCSID's shift-out/shift-in data switches between.",
        "export const SINGLE_BYTE: Readonly<Record<number, string>> = {",
    ]
    for c in sorted(single):
        lines.append(f"  {c}: {json.dumps(single[c], ensure_ascii=True)},")
    lines += ["};", "", "export const DOUBLE_BYTE: Readonly<Record<number, { units: string; extras: Record<number, string> }>> = {"]
    same = {}
    for c in sorted(doubles):
        first = next((d for d in sorted(doubles) if d < c and doubles[d] == doubles[c]), None)
        if first is not None:
            same[c] = first
            continue
        units, extras = pack_double_byte(doubles[c])
        lines.append(f"  {c}: {{ extras: {json.dumps({str(k): v for k, v in sorted(extras.items())}, ensure_ascii=True)}, units:")
        lines += [f"    {json.dumps(units[i:i + 96])} +" for i in range(0, len(units), 96)]
        lines[-1] = lines[-1][:-2] + " },"
    lines += ["};", "", "// Double-byte CCSIDs whose table is another's, kept once.", "export const DOUBLE_BYTE_SAME_AS: Readonly<Record<number, number>> = {"]
    lines += [f"  {c}: {d}," for c, d in sorted(same.items())]
    lines += ["};", "", "export const MIXED: Readonly<Record<number, { single: number; double: number }>> = {"]
    for c in sorted(mixed):
        lines.append(f"  {c}: {{ single: {mixed[c][0]}, double: {mixed[c][1]} }},")
    lines.append("};")
    return "\n".join(lines) + "\n"


# Text a customer's file in that CCSID would hold: its language's own letters and signs.
LATIN = "Grüße, Ä Ö Ü ä ö ü ß § é è ê à ç ñ Ñ ¿ ¡ å æ ø Å Æ Ø £ @ # $ [ ] { } \\ | ~ ^ ` ! ¬ ¦ ½ µ"
TEXTS = {
    37: LATIN, 273: LATIN, 277: LATIN, 278: LATIN, 280: LATIN, 284: LATIN, 285: LATIN, 297: LATIN,
    500: LATIN, 871: LATIN + " Þ þ Ð ð", 1047: LATIN,
    **{c: LATIN + " €" for c in range(1140, 1150)},
    290: "ｱｲｳｴｵ ｶﾞ ABC 123 ｰ", 1027: "abc ABC 123 [ ] { }",
    420: "مرحبا ١٢٣", 424: "שלום עולם 123", 838: "สวัสดี ๑๒๓", 870: "Zażółć gęślą jaźń Čeština Ő Ű",
    875: "Καλημέρα κόσμε", 1025: "Привет, мир Ёё", 1026: "Türkçe ğĞ ışİŞ",
    930: "東京都 ｶﾀｶﾅ 123 ＡＢＣ", 939: "東京都千代田区 abc 123 ＡＢＣ 〒", 5026: "東京 ｶﾅ 123", 5035: "大阪市 abc 123",
    1399: "東京都 abc 𠀋 ＡＢＣ €", 1390: "東京都 ｶﾀｶﾅ 𠀋 ＡＢＣ", 933: "서울특별시 abc 123", 935: "北京市海淀区 abc 123", 937: "臺北市 abc 123",
}
# GRAPHIC data: double-byte characters only, each CCSID taken from a mixed converter that holds it.
GRAPHIC = {300: ("ibm-939_P120-1999", "東京都千代田区　ＡＢＣ"), 4396: ("ibm-5035", "大阪府　ｘｙｚ"),
           16684: ("ibm-1399_P110-2003", "東京都　𠀋"), 834: ("ibm-933_P110-1995", "서울특별시　"),
           835: ("ibm-937_P110-1999", "臺北市　"), 837: ("ibm-935_P110-1999", "北京市　")}
UNICODE = {1200: ("utf-16be", "Grüße 東京 😀 𠀋"), 13488: ("utf-16be", "Grüße 東京 ÄÖÜ"), 1208: ("utf-8", "Grüße 東京 😀")}


def samples_source():
    out = {}
    for ccsid, text in TEXTS.items():
        conv = SBCS.get(ccsid) or MIXED.get(ccsid, (None,))[0] or {1027: "ibm-939_P120-1999"}[ccsid]
        data = encode(conv, text)
        if ccsid == 1027:
            assert SO not in data
        out[str(ccsid)] = {"kind": "mixed" if ccsid in MIXED else "single", "text": text, "hex": data.hex().upper()}
    for ccsid, (conv, text) in GRAPHIC.items():
        data = encode(conv, text)
        assert data[0] == SO and data[-1] == SI and SO not in data[1:-1] and SI not in data[1:-1], ccsid
        out[str(ccsid)] = {"kind": "double", "text": text, "hex": data[1:-1].hex().upper()}
    for ccsid, (conv, text) in UNICODE.items():
        out[str(ccsid)] = {"kind": "unicode", "text": text, "hex": text.encode(conv).hex().upper()}
    return json.dumps(out, ensure_ascii=False, indent=2) + "\n"


def main():
    outputs = {TABLES: tables_source(), SAMPLES: samples_source()}
    if "--check" in sys.argv:
        stale = [str(p.relative_to(ROOT)) for p, text in outputs.items() if not p.exists() or p.read_text("utf-8") != text]
        if stale:
            print("stale: " + ", ".join(stale) + " (run python3 scripts/gen-ccsid.py)")
            sys.exit(1)
        return
    for path, text in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")


main()
