/**
 * The audit browser on a fleet store: the store's sources (services/fleet/sources.ts) as the Audit tab's table
 * shows them, and a source opened as its verified local replica (services/fleet/mirror.ts, through app/fleet-reads.ts:
 * the mirror `audit show --from` reads), which the audit browser then reads as any audit database. It runs in the
 * audit worker (app/audit-worker.ts), never on the loop that answers the E-STOP. The store's URL, credentials
 * included, stays in main: what this answers names the store with its password masked, and the replicas' paths hold
 * no user or password (mirrorPath).
 */
import { WitnessError } from '../contract/errors.js';
import type { FleetMirrorResult, FleetSource, FleetSourceFilter, FleetSources } from '../contract/api/fleet.js';
import { connectStore, fleetErrorOf, redactUrl, requireSchema } from '../services/fleet/store.js';
import { checkSourceFilter, listSources } from '../services/fleet/sources.js';
import { sourceChoices } from '../services/fleet/choices.js';
import { fleetMirror } from './fleet-reads.js';

const NO_FLEET_STORE =
  'this workbench was started without a fleet store: `witness web --fleet postgres://…` (or $WITNESS_FLEET) names one';

export class FleetBrowser {
  constructor(private readonly o: { readonly fleet?: string | undefined }) {}

  private url(): string {
    if (this.o.fleet === undefined) throw new WitnessError('not-found', NO_FLEET_STORE);
    return this.o.fleet;
  }

  /** The sources the filter selects, the most recently active first, and the filter's choices. */
  async sources(filter: FleetSourceFilter = {}): Promise<FleetSources> {
    const url = this.url();
    const f = {
      ...(filter.robot !== undefined ? { robot: filter.robot } : {}),
      ...(filter.world !== undefined ? { world: filter.world } : {}),
      ...(filter.host !== undefined ? { host: filter.host } : {}),
      ...(filter.sinceMs !== undefined ? { since_ms: filter.sinceMs } : {}),
      ...(filter.untilMs !== undefined ? { until_ms: filter.untilMs } : {}),
    };
    if (filter.sinceMs !== undefined && filter.untilMs !== undefined && filter.sinceMs >= filter.untilMs)
      throw new WitnessError(
        'invalid-params',
        'filter: the time range ends before it starts (until must come after since)',
        {
          path: '$.filter.untilMs',
        },
      );
    checkSourceFilter(url, f);
    const c = await connectStore(url);
    try {
      await requireSchema(c, url);
      const rows = await listSources(c, f);
      const sources: FleetSource[] = rows.map((s) => ({
        logId: s.log_id,
        host: s.host,
        robot: s.robot,
        worlds: [...s.worlds],
        events: s.events,
        runs: s.runs,
        firstMs: s.first_ms,
        lastMs: s.last_ms,
      }));
      sources.sort((a, b) => (b.lastMs ?? -Infinity) - (a.lastMs ?? -Infinity) || a.logId.localeCompare(b.logId));
      return { store: redactUrl(url), sources, choices: await sourceChoices(c) };
    } catch (e) {
      throw fleetErrorOf(url, e);
    } finally {
      await c.end().catch(() => {});
    }
  }

  /**
   * Brings the source's replica up to the store (only what is new), verified, as `audit show --from` does (the same
   * mirror in the cache); `progress` hears each batch.
   */
  async mirror(logId: string, progress: (pulled: number) => void = () => {}): Promise<FleetMirrorResult> {
    const r = await fleetMirror(this.url(), { source: logId }, 'opening a source', { progress });
    return { logId: r.log_id, host: r.host, robot: r.robot, file: r.file, events: r.events, pulled: r.pulled };
  }
}
