"""The two sources of IBM i CCSID tables scripts/gen-ccsid.py reads: IBM's Toolbox for Java (the
converters IBM i's Java clients use, dumped by scripts/toolbox/DumpCcsidTables.java into committed
fixtures) and ICU's IBM converters (through Debian's uconv), the second witness.

A table is a dict from a code (a byte, or a double-byte code lead << 8 | trail) to the text it decodes
to; a code with no character is absent.
"""
import json
import pathlib
import shutil
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOOLBOX = ROOT / "test" / "fixtures" / "toolbox"
TOOLBOX_TABLES = TOOLBOX / "tables.txt"
TOOLBOX_SAMPLES = TOOLBOX / "samples.json"
JT400 = pathlib.Path("/usr/share/java/jt400.jar")
SO, SI, LF, SUB = 0x0E, 0x0F, 0x25, 0x3F
DOUBLE_SUB = 0xFEFE

# What we take from the Toolbox: single-byte tables (also the halves of its mixed CCSIDs), double-byte
# tables (also the GRAPHIC CCSIDs) and mixed CCSIDs, whose halves the Toolbox itself names.
TOOLBOX_SINGLE = [37, 273, 277, 278, 280, 284, 285, 290, 297, 420, 424, 500, 838, 870, 871, 875, 1025, 1026,
                  1027, 1047, *range(1140, 1150), 5123, 833, 836, 28709]
TOOLBOX_DOUBLE = [300, 4396, 16684, 834, 835, 837, 4933]
TOOLBOX_MIXED = [930, 939, 5026, 5035, 1399, 933, 935, 937, 1388]
BIDI = {420, 424}

# ICU's converter for each table: a standalone single-byte one, or the mixed converter holding it
# (ICU has no standalone 1027, 5123, 833, 836, 28709, 8482, 13124, nor the double-byte ones).
ICU_SINGLE = {
    37: "ibm-37_P100-1995", 273: "ibm-273_P100-1995", 277: "ibm-277_P100-1995",
    278: "ibm-278_P100-1995", 280: "ibm-280_P100-1995", 284: "ibm-284_P100-1995",
    285: "ibm-285_P100-1995", 290: "ibm-290_P100-1995", 297: "ibm-297_P100-1995",
    420: "ibm-420_X120-1999", 424: "ibm-424_P100-1995", 500: "ibm-500_P100-1995",
    838: "ibm-838_P100-1995", 870: "ibm-870_P100-1995", 871: "ibm-871_P100-1995",
    875: "ibm-875_P100-1995", 1025: "ibm-1025_P100-1995", 1026: "ibm-1026_P100-1995",
    1047: "ibm-1047_P100-1995",
    **{c: f"ibm-{c}_P100-1997" for c in range(1140, 1150)},
}
# Mixed CCSIDs as IBM's CDRA pairs them, with ICU's converter.
ICU_MIXED = {
    930: ("ibm-930_P120-1999", 290, 300),
    939: ("ibm-939_P120-1999", 1027, 300),
    5026: ("ibm-5026", 290, 4396),
    5035: ("ibm-5035", 1027, 4396),
    1399: ("ibm-1399_P110-2003", 5123, 16684),
    1390: ("ibm-1390_P110-2003", 8482, 16684),
    933: ("ibm-933_P110-1995", 833, 834),
    935: ("ibm-935_P110-1999", 836, 837),
    937: ("ibm-937_P110-1999", 28709, 835),
    1388: ("ibm-1388_P103-2001", 13124, 4933),
}


def uconv(args, data):
    return subprocess.run(["uconv", *args], input=data, capture_output=True, check=True).stdout


def icu_decode(converter, data):
    # An illegal or unmapped sequence comes out as ICU's escape (%Xhh), never as a guessed character.
    return uconv(["-f", converter, "-t", "utf-8", "--from-callback", "escape-icu"], data).decode("utf-8")


def icu_encode(converter, text):
    return uconv(["-f", "utf-8", "-t", converter, "--to-callback", "stop"], text.encode("utf-8"))


def _icu_single(converter, stateful):
    codes = [b for b in range(256) if not (stateful and b in (SO, SI))]
    # Each byte followed by a line feed (0x25): a character or ICU's escape of an unmapped byte, then "\n".
    text = icu_decode(converter, b"".join(bytes([b, LF]) for b in codes))
    table, at = {}, 0
    for b in codes:
        if text.startswith("%X", at):
            at += 4
        else:
            table[b] = text[at]
            at += 1
        assert text[at] == "\n", (converter, hex(b))
        at += 1
    assert at == len(text), converter
    return table


def _icu_double(converter):
    pairs = [(lead, trail) for lead in range(0x40, 0xFF) for trail in range(0x40, 0xFF)]
    data = b"".join(bytes([SO, lead, trail, SI, LF]) for lead, trail in pairs)
    lines = icu_decode(converter, data).split("\n")[:-1]
    assert len(lines) == len(pairs), converter
    return {(lead << 8) | trail: s for (lead, trail), s in zip(pairs, lines) if "%X" not in s}


def icu_tables():
    """ICU's single- and double-byte tables, by CCSID."""
    single = {c: _icu_single(conv, False) for c, conv in ICU_SINGLE.items()}
    double = {}
    for conv, sbcs, dbcs in ICU_MIXED.values():
        single.setdefault(sbcs, _icu_single(conv, True))
        if dbcs not in double:
            double[dbcs] = _icu_double(conv)
    return single, double


def read_toolbox():
    """The Toolbox's tables from the committed dump: (version, single, double, mixed pairs)."""
    single, double, mixed, table = {}, {}, {}, None
    lines = TOOLBOX_TABLES.read_text("utf-8").splitlines()
    version = lines[0].split("Toolbox for Java ", 1)[1].split(":")[0]
    for line in lines:
        if line.startswith("#"):
            continue
        kind, _, rest = line.partition(" ")
        if kind == "mixed":
            ccsid, sbcs, dbcs = map(int, rest.split())
            mixed[ccsid] = (sbcs, dbcs)
        elif kind in ("single", "double"):
            table = {}
            (single if kind == "single" else double)[int(rest)] = table
            sub = SUB if kind == "single" else DOUBLE_SUB
        else:
            code, *cps = line.split()
            first, _, run = code.partition("+")
            first = int(first, 16)
            for k in range(int(run or 1)):
                text = "".join(chr(int(cp, 16) + k) for cp in cps)
                # The Toolbox decodes a byte it has no character for to SUB (U+001A): no mapping.
                if text != "\x1a" or first + k == sub:
                    table[first + k] = text
    return version, single, double, mixed


def run_toolbox(samples):
    """Dumps the Toolbox's tables and encodes `samples` [(ccsid, text)] through it, into TOOLBOX."""
    java = shutil.which("java")
    if not java or not JT400.exists():
        raise SystemExit("--toolbox needs a JDK and IBM's Toolbox for Java: apt-get install -y default-jdk libjt400-java")
    lists = [",".join(map(str, cs)) for cs in (TOOLBOX_SINGLE, TOOLBOX_DOUBLE, TOOLBOX_MIXED)]
    stdin = "".join(f"{c}\t{t}\n" for c, t in samples).encode("utf-8")
    subprocess.run([java, "-cp", str(JT400), str(ROOT / "scripts" / "toolbox" / "DumpCcsidTables.java"),
                    str(TOOLBOX), *lists], input=stdin, check=True)
    for s in json.loads(TOOLBOX_SAMPLES.read_text("utf-8")):
        # A sample the Toolbox cannot hold would test nothing but its substitution.
        assert s["ccsid"] in BIDI or s["read"] == s["text"], s
