/**
 * A Prometheus scrape, parsed with parse-prometheus-text-format: the metric families with their
 * types, and every sample with its labels.
 *
 * The parser folds each histogram into one sample of buckets and drops the series' labels (its
 * port of the Python client's parser assumes unlabelled histograms), so the samples of a histogram
 * are read from a second parse of the same text in which histogram families are declared
 * `untyped`: then `_count`, `_sum` and `_bucket` lines come back as samples with their labels.
 */
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';

export interface PrometheusSeries {
  /** The sample's metric name: `<family>_count`, `<family>_bucket`, or the family's own. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PrometheusScrape {
  text: string;
  families: PrometheusFamily[];
  /** The family of that name, with the type its `# TYPE` line declares. */
  family(name: string): PrometheusFamily | undefined;
  /** Every sample whose name is `name`, with its labels. */
  series(name: string): PrometheusSeries[];
}

export function parseScrape(text: string): PrometheusScrape {
  const families = parsePrometheusTextFormat(text);
  const histograms = new Set(families.filter((family) => family.type === 'HISTOGRAM').map((family) => family.name));
  const untyped = text
    .split('\n')
    .map((line) => {
      const match = /^# TYPE (\S+) histogram$/.exec(line);
      return match && histograms.has(match[1]) ? `# TYPE ${match[1]} untyped` : line;
    })
    .join('\n');
  const samples: PrometheusSeries[] = parsePrometheusTextFormat(untyped).flatMap((family) =>
    family.metrics.map((sample) => ({
      name: family.name,
      labels: sample.labels ?? {},
      value: Number(sample.value),
    })),
  );
  return {
    text,
    families,
    family: (name) => families.find((family) => family.name === name),
    series: (name) => samples.filter((sample) => sample.name === name),
  };
}
