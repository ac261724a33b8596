// Writes what IBM's Toolbox for Java reads from 420 and 424 bytes and writes for 420 and 424 text, the
// fixtures test/lib/ibmi/bidi.unit.test.ts holds our reordering and shaping to. Run where libjt400-java
// and a JDK are installed (python3 scripts/gen-bidi-samples.py does it); npm test needs only the file.
//
//   java -cp /usr/share/java/jt400.jar scripts/toolbox/BidiSamples.java < lines > bidi.json
//
// Each line on stdin is "CCSID<TAB>read<TAB>HEX" (the bytes decoded through the client's converter,
// visual to logical) or "CCSID<TAB>write<TAB>text" (the text encoded, logical to visual).
import java.io.*;
import java.nio.charset.StandardCharsets;

public class BidiSamples {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    StringBuilder out = new StringBuilder("[\n");
    String comma = "";
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isEmpty()) continue;
      String[] p = line.split("\t", 3);
      com.ibm.as400.access.CharConverter c = new com.ibm.as400.access.CharConverter(Integer.parseInt(p[0]));
      String hex, text;
      if (p[1].equals("read")) {
        hex = p[2];
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        text = c.byteArrayToString(b, 0, b.length);
      } else {
        text = p[2];
        StringBuilder h = new StringBuilder();
        for (byte x : c.stringToByteArray(text)) h.append(String.format("%02X", x & 0xff));
        hex = h.toString();
      }
      out.append(comma).append("  {\"ccsid\": ").append(p[0]).append(", \"way\": \"").append(p[1])
          .append("\", \"hex\": \"").append(hex).append("\", \"text\": ").append(json(text)).append('}');
      comma = ",\n";
    }
    out.append("\n]\n");
    System.out.write(out.toString().getBytes(StandardCharsets.UTF_8));
    System.out.flush();
  }

  static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      if (ch == '"' || ch == '\\') b.append('\\').append(ch);
      else if (ch < 0x20 || (ch >= 0x7f && ch <= 0x9f) || (ch >= 0x200b && ch <= 0x202e) || ch == 0xad)
        b.append(String.format("\\u%04x", (int) ch));
      else b.append(ch);
    }
    return b.append('"').toString();
  }
}
