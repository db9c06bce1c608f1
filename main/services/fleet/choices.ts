/** What a filter of the fleet store's sources can choose: every robot, world and host the store holds. */
import type pg from 'pg';

export interface SourceChoices {
  readonly robots: string[];
  readonly worlds: string[];
  readonly hosts: string[];
}

/** Every robot, world and host of the store, sorted (each list read through an index or the small sources table). */
export async function sourceChoices(c: pg.Client): Promise<SourceChoices> {
  const r = await c.query<{ robots: string[]; worlds: string[]; hosts: string[] }>(`
    SELECT
      ARRAY(SELECT DISTINCT robot FROM witness.sources WHERE robot IS NOT NULL ORDER BY robot) AS robots,
      ARRAY(SELECT DISTINCT world FROM witness.runs ORDER BY world) AS worlds,
      ARRAY(SELECT DISTINCT host FROM witness.sources ORDER BY host) AS hosts`);
  const row = r.rows[0];
  return { robots: row?.robots ?? [], worlds: row?.worlds ?? [], hosts: row?.hosts ?? [] };
}
