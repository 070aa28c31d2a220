// The part of the `parse-prometheus-text-format` package (a test dependency that ships no types)
// the tests use: one object per metric family, sample values as written (strings). A histogram
// family comes back as ONE metric with buckets, count and sum, its other labels dropped: the
// package cannot tell labelled histogram series apart, so tests read only unlabelled histograms.
declare module "parse-prometheus-text-format" {
  export type PrometheusSample = {
    labels?: Record<string, string>;
    value?: string;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  };
  export type PrometheusFamily = {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: PrometheusSample[];
  };
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
