/**
 * Long jobs (planning, building a graph): each has a client-chosen id, reports progress as `job`
 * events (throttled), and can be cancelled, which aborts its signal; the job's own call then
 * rejects with code 'cancelled'.
 */
import type { JobEvent } from '../contract/api.js';
import { WitnessError } from '../contract/errors.js';
import type { EventBus } from './events.js';

/** A job's progress: the phase it is in and how far along it is. */
export type Progress = (phase: string, done: number, total: number) => void;

/** Minimum time between two progress events of one job. */
const THROTTLE_MS = 100;

export class Jobs {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly bus: EventBus,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async run<T>(job: string, title: string, work: (signal: AbortSignal, progress: Progress) => Promise<T>): Promise<T> {
    if (this.running.has(job)) throw new WitnessError('busy', `job ${job} is already running`, { path: '$.job' });
    const controller = new AbortController();
    this.running.set(job, controller);
    let last = -Infinity;
    let phaseNow = 'starting';
    const emit = (state: JobEvent['state'], phase: string, done: number, total: number, message?: string): void =>
      this.bus.emit({
        topic: 'job',
        job,
        title,
        state,
        phase,
        done,
        total,
        ...(message !== undefined ? { message } : {}),
      });
    const progress: Progress = (phase, done, total) => {
      const t = this.now();
      if (phase === phaseNow && t - last < THROTTLE_MS && done < total) return;
      phaseNow = phase;
      last = t;
      emit('running', phase, done, total);
    };
    emit('running', 'starting', 0, 1);
    try {
      const result = await work(controller.signal, progress);
      if (controller.signal.aborted) throw new WitnessError('cancelled', `${title}: cancelled`);
      emit('done', 'done', 1, 1);
      return result;
    } catch (e) {
      if (controller.signal.aborted) {
        emit('cancelled', phaseNow, 0, 1, 'cancelled by the operator');
        throw new WitnessError('cancelled', `${title}: cancelled`);
      }
      emit('failed', phaseNow, 0, 1, e instanceof Error ? e.message : String(e));
      throw e;
    } finally {
      this.running.delete(job);
    }
  }

  cancel(job: string): boolean {
    const c = this.running.get(job);
    if (c === undefined) return false;
    c.abort();
    return true;
  }
}
