import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Request latencies span quick catalog reads to long SVG streams. */
const REQUEST_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** An upstream call is one model completion: from a fraction of a second to minutes. */
const UPSTREAM_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];

/** One model server as the engines report it (the contract's UpstreamStatus; observability imports nothing). */
export interface UpstreamStatus {
  model: string;
  upstream: string;
  state: 'healthy' | 'trial' | 'out';
  inFlight: number;
  returnsAt?: number;
}

/** inkwell_upstream_up by state. */
const UP = { healthy: 1, trial: 0.5, out: 0 } as const;

/** The label of requests no route matched: raw URLs never become labels. */
const UNMATCHED_ROUTE = 'unmatched';

interface RequestSeries {
  count: { inc(): void };
  seconds: { observe(value: number): void };
}

/**
 * The service's Prometheus metrics, in a registry of its own (one per running server, so
 * several servers in one process never share or collide). Each layer reports through a small
 * interface of its own (requests, streams, limits, billing, upstream calls); this class is the
 * one place that knows prom-client.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status'>;
  /** Labelled children by route, method and status: the per-request path looks them up without building label objects. */
  private readonly requestSeries = new Map<string, Map<string, Map<number, RequestSeries>>>();
  private readonly upstreamSeconds: Histogram<'model' | 'upstream' | 'outcome'>;
  private readonly upstreamErrors: Counter<'model' | 'upstream' | 'kind'>;
  private readonly upstreamEjections: Counter<'model' | 'upstream'>;
  private upstreamStatus: () => UpstreamStatus[] = () => [];
  private readonly creditsDebited: Counter<'model' | 'operation'>;
  private readonly limitRefusals: Counter<'rule'>;
  private readonly activeStreams: Gauge;
  private traceQueueDepth: () => number = () => 0;

  constructor(private readonly options: { millicentsPerCredit: number }) {
    const registers = [this.registry];
    const metrics = this;
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'inkwell_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'inkwell_http_request_duration_seconds',
      help: 'Time from receiving a request to the end of its response (a stream counts until [DONE]).',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_SECONDS,
      registers,
    });
    this.upstreamSeconds = new Histogram({
      name: 'inkwell_upstream_request_duration_seconds',
      help: 'Duration of calls to OpenAI-compatible model servers, by catalog model, upstream and outcome (ok, error, cancelled); its _count is the calls made.',
      labelNames: ['model', 'upstream', 'outcome'],
      buckets: UPSTREAM_SECONDS,
      registers,
    });
    this.upstreamErrors = new Counter({
      name: 'inkwell_upstream_errors_total',
      help: 'Failed calls to OpenAI-compatible model servers, by catalog model, upstream and kind of failure.',
      labelNames: ['model', 'upstream', 'kind'],
      registers,
    });
    this.upstreamEjections = new Counter({
      name: 'inkwell_upstream_ejections_total',
      help: 'Times an upstream was taken out after failing (or a 429), by catalog model and upstream.',
      labelNames: ['model', 'upstream'],
      registers,
    });
    const upstreamGauge = (name: string, help: string, value: (status: UpstreamStatus) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['model', 'upstream'],
        registers,
        collect() {
          this.reset(); // the engines' list, read now, is the whole truth
          for (const status of metrics.upstreamStatus()) this.labels(status.model, status.upstream).set(value(status));
        },
      });
    upstreamGauge('inkwell_upstream_in_flight', 'Calls in flight to each upstream now.', (status) => status.inFlight);
    upstreamGauge('inkwell_upstream_up', 'Whether each upstream takes calls now: 1 in service, 0.5 ready for one trial call, 0 out after failing.', (status) => UP[status.state]);
    this.creditsDebited = new Counter({
      name: 'inkwell_credits_debited_total',
      help: 'Credits charged at settlement, by catalog model and operation.',
      labelNames: ['model', 'operation'],
      registers,
    });
    this.limitRefusals = new Counter({
      name: 'inkwell_rate_limit_refusals_total',
      help: 'Requests refused with 429 by a rate-limit rule, by rule.',
      labelNames: ['rule'],
      registers,
    });
    this.activeStreams = new Gauge({ name: 'inkwell_active_streams', help: 'Server-Sent Event streams open now.', registers });
    new Gauge({
      name: 'inkwell_trace_queue_depth',
      help: 'Tracing jobs waiting for a tracer worker process.',
      registers,
      collect() {
        this.set(metrics.traceQueueDepth());
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text a scrape receives. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** The tracer's queue is read at scrape time, not tracked on every job. */
  watchTraceQueue(depth: () => number): void {
    this.traceQueueDepth = depth;
  }

  requestCompleted(method: string, route: string | undefined, status: number, seconds: number): void {
    const series = this.seriesOf(method, route ?? UNMATCHED_ROUTE, status);
    series.count.inc();
    series.seconds.observe(seconds);
  }

  streamOpened(): void {
    this.activeStreams.inc();
  }

  streamClosed(): void {
    this.activeStreams.dec();
  }

  refused(rule: string): void {
    this.limitRefusals.labels(rule).inc();
  }

  debited(model: string, operation: string, millicents: number): void {
    this.creditsDebited.labels(model, operation).inc(millicents / this.options.millicentsPerCredit);
  }

  /** The upstreams' state and calls in flight are read at scrape time, not tracked on every call. */
  watchUpstreams(status: () => UpstreamStatus[]): void {
    this.upstreamStatus = status;
  }

  /** The upstreams now (the metrics listener's `GET /upstreams`). */
  upstreams(): UpstreamStatus[] {
    return this.upstreamStatus();
  }

  /** One finished call to a model server: its outcome is ok, error (with what failed) or cancelled. */
  upstreamCall(model: string, upstream: string, report: { seconds: number; outcome: string; failure?: string }): void {
    this.upstreamSeconds.labels(model, upstream, report.outcome).observe(report.seconds);
    if (report.outcome === 'error') this.upstreamErrors.labels(model, upstream, report.failure ?? 'unknown').inc();
  }

  upstreamEjected(model: string, upstream: string): void {
    this.upstreamEjections.labels(model, upstream).inc();
  }

  private seriesOf(method: string, route: string, status: number): RequestSeries {
    let byMethod = this.requestSeries.get(route);
    if (!byMethod) this.requestSeries.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      const labels = [method, route, String(status)] as const;
      series = { count: this.requests.labels(...labels), seconds: this.requestSeconds.labels(...labels) };
      byStatus.set(status, series);
    }
    return series;
  }
}
