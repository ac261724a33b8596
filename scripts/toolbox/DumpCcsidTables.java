// Writes IBM's Toolbox for Java conversion tables, and sample texts it encodes, as the fixtures
// scripts/gen-ccsid.py generates our CCSID tables from. Run where libjt400-java and a JDK are installed
// (python3 scripts/gen-ccsid.py --toolbox does it); npm test never needs a JVM, only the files written.
//
//   java -cp /usr/share/java/jt400.jar scripts/toolbox/DumpCcsidTables.java OUT_DIR SINGLE DOUBLE MIXED < samples
//
// SINGLE, DOUBLE and MIXED are comma-separated CCSIDs. Each table is decoded code by code through the
// Toolbox's own converter, the way a Java client reads a field, except 420 and 424, whose converters
// reorder and unshape text: their tables are read before that transform, and the samples show it.
// Samples on stdin are lines "CCSID<TAB>text"; each is encoded by the Toolbox and decoded back: "read"
// is what the Toolbox's client reads, "stored" the characters in the order the bytes hold them.
import java.io.*;
import java.lang.reflect.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

public class DumpCcsidTables {
  static final Class<?> CONV_TABLE = cls("ConvTable");
  static final Method GET_TABLE = method(CONV_TABLE, "getTable", int.class, cls("AS400ImplRemote"));
  static final Method DECODE = method(CONV_TABLE, "byteArrayToString", byte[].class, int.class, int.class);

  public static void main(String[] args) throws Exception {
    Path out = Paths.get(args[0]);
    Files.createDirectories(out);
    StringBuilder tables = new StringBuilder();
    tables.append("# Written by scripts/toolbox/DumpCcsidTables.java from IBM's Toolbox for Java ")
        .append(toolboxVersion()).append(": do not edit.\n")
        .append("# 'CODE CP...': the code decodes to those code points; 'CODE+N CP': N codes from CODE\n")
        .append("# decode to consecutive code points from CP. Codes that decode to U+FFFD are left out.\n");
    for (int ccsid : list(args[3])) {
      Object table = table(ccsid);
      tables.append("mixed ").append(ccsid).append(' ').append(ccsidOf(field(table, "sbTable_")))
          .append(' ').append(ccsidOf(field(table, "dbTable_"))).append('\n');
    }
    for (int ccsid : list(args[1])) singleByte(tables, ccsid);
    for (int ccsid : list(args[2])) doubleByte(tables, ccsid);
    Files.write(out.resolve("tables.txt"), tables.toString().getBytes(StandardCharsets.UTF_8));

    StringBuilder samples = new StringBuilder("[\n");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String first = "";
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isEmpty()) continue;
      String[] parts = line.split("\t", 2);
      int ccsid = Integer.parseInt(parts[0]);
      // Through the public converter a client uses: for 420 and 424 it stores visual order and reads
      // logical order back (the converter table's own methods would skip that transform).
      com.ibm.as400.access.CharConverter client = new com.ibm.as400.access.CharConverter(ccsid);
      byte[] bytes = client.stringToByteArray(parts[1]);
      String read = client.byteArrayToString(bytes, 0, bytes.length);
      Object table = table(ccsid);
      char[] raw = rawBidiTable(table);
      StringBuilder stored = new StringBuilder();
      if (raw != null) for (byte b : bytes) stored.append(raw[b & 0xFF]);
      samples.append(first).append("  {\"ccsid\": ").append(parts[0]).append(", \"text\": ").append(json(parts[1]))
          .append(", \"hex\": \"").append(hex(bytes)).append("\", \"read\": ").append(json(read))
          .append(", \"stored\": ").append(json(raw != null ? stored.toString() : read)).append('}');
      first = ",\n";
    }
    samples.append("\n]\n");
    Files.write(out.resolve("samples.json"), samples.toString().getBytes(StandardCharsets.UTF_8));
  }

  static void singleByte(StringBuilder out, int ccsid) throws Exception {
    Object table = table(ccsid);
    // A bidi table's converter would reorder and unshape even one character; its raw table is what
    // the bytes mean before that.
    char[] raw = rawBidiTable(table);
    out.append("single ").append(ccsid).append('\n');
    List<int[]> codes = new ArrayList<>();
    for (int b = 0; b < 256; b++) {
      String s = raw != null ? String.valueOf(raw[b]) : (String) DECODE.invoke(table, new byte[] {(byte) b}, 0, 1);
      codes.add(prepend(b, s.codePoints().toArray()));
    }
    write(out, codes, 2);
  }

  static void doubleByte(StringBuilder out, int ccsid) throws Exception {
    Object table = table(ccsid);
    out.append("double ").append(ccsid).append('\n');
    List<int[]> codes = new ArrayList<>();
    for (int lead = 0x40; lead < 0xFF; lead++) {
      for (int trail = 0x40; trail < 0xFF; trail++) {
        String s = (String) DECODE.invoke(table, new byte[] {(byte) lead, (byte) trail}, 0, 2);
        codes.add(prepend((lead << 8) | trail, s.codePoints().toArray()));
      }
    }
    write(out, codes, 4);
  }

  // Runs of codes that map one to one onto consecutive code points are written as one line.
  static void write(StringBuilder out, List<int[]> codes, int digits) {
    String format = "%0" + digits + "X";
    for (int i = 0; i < codes.size(); ) {
      int[] c = codes.get(i);
      if (c.length == 2 && c[1] == 0xFFFD) { i++; continue; }
      int run = 1;
      while (c.length == 2 && i + run < codes.size()) {
        int[] n = codes.get(i + run);
        if (n.length != 2 || n[0] != c[0] + run || n[1] != c[1] + run) break;
        run++;
      }
      out.append(String.format(format, c[0]));
      if (run > 1) out.append('+').append(run);
      for (int k = 1; k < c.length; k++) out.append(String.format(" %04X", c[k]));
      out.append('\n');
      i += run;
    }
  }

  // A bidi table's characters in stored order; null for the others. (ConvTable420 also declares a
  // packed String toUnicode_; the char[] is its superclass's.)
  static char[] rawBidiTable(Object table) throws Exception {
    Class<?> bidi = cls("ConvTableBidiMap");
    return bidi.isInstance(table) ? (char[]) field(table, bidi, "toUnicode_") : null;
  }

  static int[] prepend(int code, int[] cps) {
    int[] all = new int[cps.length + 1];
    all[0] = code;
    System.arraycopy(cps, 0, all, 1, cps.length);
    return all;
  }

  static String toolboxVersion() {
    Package p = CONV_TABLE.getPackage();
    String v = p.getImplementationVersion();
    return v != null ? "(" + v + ")" : "(JTOpen)";
  }

  static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      if (ch == '"' || ch == '\\') b.append('\\').append(ch);
      else if (ch < 0x20 || ch > 0x7E) b.append(String.format("\\u%04x", (int) ch));
      else b.append(ch);
    }
    return b.append('"').toString();
  }

  static String hex(byte[] bytes) {
    StringBuilder b = new StringBuilder();
    for (byte x : bytes) b.append(String.format("%02X", x & 0xFF));
    return b.toString();
  }

  static int[] list(String csv) {
    return csv.isEmpty() ? new int[0] : Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
  }

  static Object table(int ccsid) throws Exception { return GET_TABLE.invoke(null, ccsid, null); }

  static int ccsidOf(Object table) throws Exception { return (Integer) field(table, "ccsid_"); }

  static Object field(Object o, String name) throws Exception { return field(o, o.getClass(), name); }

  static Object field(Object o, Class<?> from, String name) throws Exception {
    for (Class<?> c = from; c != null; c = c.getSuperclass()) {
      try {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
      } catch (NoSuchFieldException e) {
        // look in the superclass
      }
    }
    throw new NoSuchFieldException(name);
  }

  static Class<?> cls(String name) {
    try {
      return Class.forName("com.ibm.as400.access." + name);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("IBM's Toolbox for Java is not on the class path (apt-get install libjt400-java)", e);
    }
  }

  static Method method(Class<?> c, String name, Class<?>... types) {
    try {
      Method m = c.getDeclaredMethod(name, types);
      m.setAccessible(true);
      return m;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }
}
