// The parser's answer, in prom2json's shape (the package ships no types).
declare module 'parse-prometheus-text-format' {
  export interface ParsedFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'SUMMARY' | 'HISTOGRAM' | 'UNTYPED';
    metrics: { value: string; labels?: Record<string, string> }[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
