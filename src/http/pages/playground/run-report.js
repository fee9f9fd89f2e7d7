// What a run (or the key check) reported: HTTP status, request id, time, credits or tokens spent,
// the environment of the key, the error envelope when there is one, and the stream's events.
import { byId, el, formatDuration } from './dom.js';

const LOG_LIMIT = 400;

export class RunReport {
  constructor() {
    this.summary = byId('summary');
    this.status = byId('summary-status');
    this.requestId = byId('summary-request-id');
    this.time = byId('summary-time');
    this.costLabel = byId('summary-cost-label');
    this.cost = byId('summary-cost');
    this.env = byId('summary-env');
    this.errorBox = byId('error');
    this.log = byId('log');
    this.logList = byId('log-list');
    this.logCount = byId('log-count');
    this.timer = 0;
    this.events = 0;
    byId('copy-request-id').addEventListener('click', () => {
      navigator.clipboard?.writeText(this.requestId.textContent).catch(() => {});
    });
  }

  /** A new run: everything from the last one is cleared. */
  start(label) {
    this.clearError();
    this.started = performance.now();
    this.credits = undefined;
    this.usage = undefined;
    this.events = 0;
    this.logList.replaceChildren();
    this.logCount.textContent = '';
    this.log.hidden = true;
    this.summary.hidden = false;
    this.setStatus('running', `${label}…`);
    this.requestId.textContent = '—';
    this.env.hidden = true;
    this.showCost();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.tick(), 100);
    this.tick();
  }

  /** The answer's status line and headers arrived. */
  answered(info) {
    this.requestId.textContent = info.requestId ?? '—';
    this.setEnvironment(info.environment);
  }

  setEnvironment(environment) {
    this.env.hidden = !environment;
    this.env.dataset.env = environment ?? '';
    this.env.textContent = environment === 'test' ? 'Sandbox: nothing is debited' : environment === 'live' ? 'Live: billed' : '';
  }

  /** Adds what one output (or a whole JSON answer) cost. */
  spent({ credits, usage }) {
    if (typeof credits === 'number') this.credits = (this.credits ?? 0) + credits;
    if (usage) {
      const total = this.usage ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
      for (const field of Object.keys(total)) total[field] += usage[field] ?? 0;
      this.usage = total;
    }
    this.showCost();
  }

  showCost() {
    if (this.credits !== undefined) {
      this.costLabel.textContent = 'Credits';
      this.cost.textContent = String(this.credits);
    } else if (this.usage) {
      this.costLabel.textContent = 'Tokens';
      this.cost.textContent = `${this.usage.input_tokens} in · ${this.usage.output_tokens} out`;
    } else {
      this.costLabel.textContent = 'Credits';
      this.cost.textContent = '—';
    }
  }

  /** The run is over: `outcome` is succeeded, partial, failed or stopped. */
  finish(outcome, httpStatus) {
    clearInterval(this.timer);
    this.tick();
    const text = { succeeded: 'Succeeded', partial: 'Partly succeeded', failed: 'Failed', stopped: 'Stopped' }[outcome];
    this.setStatus(outcome, httpStatus ? `${text} · ${httpStatus}` : text);
  }

  setStatus(kind, text) {
    this.status.dataset.kind = kind;
    this.status.textContent = text;
  }

  tick() {
    this.time.textContent = formatDuration(performance.now() - this.started);
  }

  /** Shows an error envelope (a JSON answer or a stream's `error` event) field by field. */
  showError(envelope, requestIdHeader) {
    this.errorBox.hidden = false;
    byId('error-status').textContent = String(envelope.status ?? '');
    byId('error-code').textContent = envelope.code ?? 'error';
    byId('error-message').textContent = oneFinalPeriod(envelope.message ?? '');
    byId('error-param-row').hidden = envelope.param === undefined;
    byId('error-param').textContent = envelope.param ?? '';
    byId('error-request-id').textContent = envelope.request_id ?? requestIdHeader ?? '—';
  }

  /**
   * A failure with no answer from the service (the network, a file that cannot be read): `what`
   * failed, and why when an `error` says.
   */
  showProblem(what, error) {
    const message = error?.message ? `${what}: ${error.message}` : what;
    this.showError({ code: 'no_answer', message: `${message.replace(/\.+$/, '')}.` });
  }

  clearError() {
    this.errorBox.hidden = true;
  }

  /** One line per stream event: when, what, and for which output. */
  logEvent(event) {
    this.events += 1;
    this.log.hidden = false;
    this.logCount.textContent = String(this.events);
    if (this.logList.childElementCount >= LOG_LIMIT) return;
    const at = formatDuration(performance.now() - this.started);
    const where = event.index !== undefined ? `output ${event.index + 1}` : '';
    const detail = event.type === 'error' ? `${event.code}: ${oneFinalPeriod(event.message ?? '')}` : event.svg ? `${event.svg.length} chars` : event.text ?? '';
    this.logList.append(
      el('li', { 'data-type': event.type }, el('span', { class: 'log-time', text: at }), el('strong', { text: event.type }), ` ${where} `, el('span', { class: 'log-detail', text: detail })),
    );
  }
}

/**
 * `text` without a doubled final period: a message that already ends with one and had another
 * appended ("…failed..") is shown as one sentence. An ellipsis ("...") is left alone.
 */
function oneFinalPeriod(text) {
  return text.replace(/(?<!\.)\.\.$/, '.');
}
