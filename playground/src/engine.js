// The page's side of the engine worker. One request runs at a time; a newer
// request replaces a queued one (only the latest inputs matter). A request that
// gets no answer within the time budget, or a worker that dies, makes the
// client terminate the worker and start a fresh one, so a hostile definition
// can never freeze the page.

export class EngineClient {
  /**
   * @param {object} o
   * @param {number} o.budgetMs time budget of one request
   * @param {(e: {kind: string, message: string}) => void} o.onRestart
   * @param {(s: string) => void} o.onState  'starting' | 'ready' | 'busy'
   */
  constructor({ budgetMs = 4000, onRestart = () => {}, onState = () => {} } = {}) {
    this.budgetMs = budgetMs;
    this.onRestart = onRestart;
    this.onState = onState;
    this.restarts = 0;
    this.nextId = 1;
    this.inflight = null; // {id, msg, resolve, timer}
    this.queued = null; // {msg, resolve}
    this.ready = this.#start();
  }

  #start() {
    this.onState('starting');
    this.workerReady = false;
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'workload-lens engine' });
    const w = this.worker;
    return new Promise((resolve, reject) => {
      const startTimer = setTimeout(() => {
        if (w !== this.worker) return;
        reject(new Error('the engine did not start'));
        this.#replace('timeout', 'The engine did not start in time; it was restarted.');
      }, Math.max(this.budgetMs, 15000));
      w.onmessage = (ev) => {
        const m = ev.data;
        if (m.type === 'ready') {
          clearTimeout(startTimer);
          this.version = m.version;
          this.catalog = m.catalog;
          this.workerReady = true;
          this.onState('ready');
          resolve(m);
          this.#pump();
        } else if (this.inflight && m.id === this.inflight.id) {
          const { resolve: done, timer } = this.inflight;
          clearTimeout(timer);
          this.inflight = null;
          done(m);
          this.#pump();
        }
      };
      const died = (message) => {
        clearTimeout(startTimer);
        if (w !== this.worker) return;
        this.#replace('crash', message);
      };
      w.onerror = (ev) => {
        ev.preventDefault?.();
        died(`The engine worker failed (${ev.message || 'error'}); it was restarted.`);
      };
      w.onmessageerror = () => died('The engine worker sent an unreadable message; it was restarted.');
      w.postMessage({ type: 'init' });
    });
  }

  /** Terminate the worker, answer the request in flight with an error, start anew. */
  #replace(kind, message) {
    this.restarts += 1;
    try {
      this.worker.terminate();
    } catch {
      /* already gone */
    }
    const inflight = this.inflight;
    this.inflight = null;
    if (inflight) {
      clearTimeout(inflight.timer);
      inflight.resolve({ type: 'aborted', id: inflight.id, kind, message });
    }
    this.onRestart({ kind, message });
    this.ready = this.#start();
    this.ready.catch(() => {});
  }

  #pump() {
    if (this.inflight || !this.queued || !this.workerReady) return;
    const { msg, resolve } = this.queued;
    this.queued = null;
    const id = this.nextId++;
    const timer = setTimeout(() => {
      if (this.inflight?.id !== id) return;
      this.#replace('timeout',
        `The engine did not answer within ${(this.budgetMs / 1000).toFixed(1)} s (a definition that does too much work?). ` +
        'It was stopped and a fresh engine started.');
    }, this.budgetMs);
    this.inflight = { id, msg, resolve, timer };
    this.onState('busy');
    this.worker.postMessage({ ...msg, id });
  }

  /** Run a request; resolves with the worker's answer, `{type: 'aborted'}`, or `{type: 'superseded'}`. */
  request(msg) {
    return new Promise((resolve) => {
      if (this.queued) this.queued.resolve({ type: 'superseded' });
      this.queued = { msg, resolve };
      this.#pump();
    }).finally(() => {
      if (!this.inflight && !this.queued && this.workerReady) this.onState('ready');
    });
  }
}
