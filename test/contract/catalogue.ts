/** Checks every event a database holds against the audit event catalogue's schema for its kind. */
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { AUDIT_EVENTS } from '../../main/contract/audit-events.js';
import { openAuditReadOnly } from '../../main/services/audit/store.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validators = new Map<string, ValidateFunction>(Object.entries(AUDIT_EVENTS).map(([k, s]) => [k, ajv.compile(s)]));

/** Every body validates against its kind's schema; returns how many events of each kind were checked. */
export function assertCatalogued(file: string): Record<string, number> {
  const db = openAuditReadOnly(file);
  const seen: Record<string, number> = {};
  try {
    for (const e of db.prepare('SELECT seq, kind, body FROM events ORDER BY seq').iterate() as IterableIterator<{
      seq: number;
      kind: string;
      body: string;
    }>) {
      const v = validators.get(e.kind);
      assert.ok(v !== undefined, `event ${e.seq}: kind ${e.kind} is not in the catalogue`);
      const ok = v(JSON.parse(e.body));
      assert.ok(
        ok,
        `event ${e.seq} (${e.kind}) does not match the catalogue: ${ajv.errorsText(v.errors)}: ${e.body.slice(0, 400)}`,
      );
      seen[e.kind] = (seen[e.kind] ?? 0) + 1;
    }
  } finally {
    db.close();
  }
  return seen;
}

/** A mission's audit hooks that check every event against the catalogue as it is recorded. */
export function catalogueAudit(): {
  plan(t: number, trigger: string, doc: Record<string, unknown>, ms: number): void;
  event(kind: string, body: unknown): void;
  readonly kinds: Record<string, number>;
} {
  const kinds: Record<string, number> = {};
  return {
    kinds,
    plan: () => {
      kinds['plan'] = (kinds['plan'] ?? 0) + 1;
    },
    event(kind, body) {
      const v = validators.get(kind);
      assert.ok(v !== undefined, `kind ${kind} is not in the catalogue`);
      assert.ok(
        v(JSON.parse(JSON.stringify(body))),
        `${kind} does not match the catalogue: ${ajv.errorsText(v.errors)}: ${JSON.stringify(body).slice(0, 400)}`,
      );
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    },
  };
}
