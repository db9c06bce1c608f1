/**
 * The file formats people write by hand (docs/FORMATS.md): task regions, labelled graphs and tool
 * definitions. Each is one TypeBox definition: the JSON Schema that validates the file (published in
 * docs/schemas/, where editors pick it up through "$schema") and the TypeScript type of what
 * validation lets through.
 */
import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, jsonSchema } from './schema.js';
import { FAILURE_CLASSES } from './failure.js';

export { jsonSchema };

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const id = (name: string): string => `https://witness.invalid/schemas/${name}.schema.json`;
const strict = { additionalProperties: false } as const;
const Point = Type.Array(Type.Number(), { minItems: 2, maxItems: 2 });

/** One named region in the x–y plane: a disk (center, radius) or an axis-aligned box (min, max). */
export const RegionEntry = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    kind: StringEnum(['disk', 'box']),
    center: Type.Optional(Point),
    radius: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    min: Type.Optional(Point),
    max: Type.Optional(Point),
  },
  strict,
);
export type RegionEntry = Static<typeof RegionEntry>;

export const RegionsDocument = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    world: Type.Optional(Type.String()),
    regions: Type.Array(RegionEntry),
  },
  {
    ...strict,
    $schema: DRAFT,
    $id: id('regions'),
    title: 'Witness task regions',
    description:
      'Named task-space regions (disks and boxes in the x–y plane); a proposition holds where the robot is inside its region.',
  },
);
export type RegionsDocument = Static<typeof RegionsDocument>;

export const GraphDocument = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    nodes: Type.Array(
      Type.Object(
        {
          id: Type.String({ minLength: 1 }),
          labels: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true })),
          pos: Type.Optional(Type.Array(Type.Number(), { minItems: 2, maxItems: 3 })),
        },
        strict,
      ),
      { minItems: 1 },
    ),
    edges: Type.Optional(
      Type.Array(
        Type.Object(
          {
            from: Type.String(),
            to: Type.String(),
            weight: Type.Optional(Type.Number({ minimum: 0, description: 'Non-negative cost; 1 when absent.' })),
          },
          strict,
        ),
      ),
    ),
    start: Type.String(),
    directed: Type.Optional(Type.Boolean({ description: 'Edges go one way only; false (both ways) when absent.' })),
    map: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The map_server YAML the graph was made from (`witness graph from-map` writes it), relative to this file: a mission on the graph records the map in its audit run, and Foxglove draws it.',
      }),
    ),
  },
  {
    ...strict,
    $schema: DRAFT,
    $id: id('graph'),
    title: 'Witness labelled graph',
    description:
      'A labelled transition system for `witness plan`: nodes with exact label sets, weighted edges, a start node.',
  },
);
export type GraphDocument = Static<typeof GraphDocument>;

const Condition = Type.Object({ name: Type.String({ minLength: 1 }), expr: Type.String({ minLength: 1 }) }, strict);

export const ToolDocument = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    name: Type.String({ pattern: '^[a-z][a-z0-9_]*$' }),
    description: Type.String({ minLength: 1 }),
    skill: Type.String({ minLength: 1 }),
    arguments: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      description: 'A JSON Schema 2020-12 for the arguments object.',
    }),
    preconditions: Type.Optional(
      Type.Array(Condition, {
        description: 'Checked on the state observed just before the call; may read args.<name> (not pre).',
      }),
    ),
    postconditions: Type.Array(Condition, {
      minItems: 1,
      description:
        'Checked on the state observed after the call (sensor evidence, never the return value); may read args.<name> and pre.<field>.',
    }),
    timeout_s: Type.Number({ exclusiveMinimum: 0 }),
    failures: Type.Optional(
      Type.Array(
        Type.Object(
          {
            when: Type.String({
              minLength: 1,
              description:
                'CEL over the state observed after the failure; may read args.<name>, pre.<field> and error.kind, error.message (the world error of a failed execution; empty strings otherwise).',
            }),
            label: Type.String({ minLength: 1 }),
            class: StringEnum(FAILURE_CLASSES, {
              description:
                'transient: replanned within the budget (retry, adjusted parameters); permanent: escalated at once unless the planner has another way past it (a plan alternative for the label).',
            }),
            reason: Type.Optional(
              Type.String({
                minLength: 1,
                description: 'Why, in words: recorded with the failure and shown when it escalates.',
              }),
            ),
          },
          strict,
        ),
        {
          description:
            'Rules tried in order on the observed state after a failure (they may read args, pre and error): the first that holds gives the failure label, class and reason. Without a match: an evaluation error is permanent; a world error of kind not-found, invalid-input, rejected, closed or disconnected is permanent, any other (timeout, aborted, cancelled, failed) transient; a violated condition is transient.',
        },
      ),
    ),
  },
  {
    ...strict,
    $schema: DRAFT,
    $id: id('tool'),
    title: 'Witness tool definition',
    description:
      "A typed robot action: arguments, preconditions, postconditions (CEL over world fields, the call's arguments as args.<name> and, after the call, the state before it as pre.<field>), timeout, failure classes, the skill it binds to.",
  },
);
export type ToolDocument = Static<typeof ToolDocument>;

/** A rules file's proposition and rule names: the LTL engine reads them as atomic propositions. */
export const RULE_NAME = '^[a-z][a-z0-9_]*$';

export const RulesDocument = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    propositions: Type.Record(
      Type.String({ pattern: RULE_NAME }),
      Type.String({
        minLength: 1,
        description:
          'CEL over the state observed after a call (world fields, objects) and the call itself (call.tool, call.args.<name>).',
      }),
      { additionalProperties: false, description: 'Named propositions the rules are written over.' },
    ),
    rules: Type.Array(
      Type.Object(
        {
          name: Type.String({ pattern: RULE_NAME }),
          ltl: Type.String({
            minLength: 1,
            description:
              'LTL over the propositions, one letter per executed call; F[<=n] p (p within n calls, this one included) expands to p | X p | … | X^(n-1) p.',
          }),
          description: Type.Optional(Type.String()),
        },
        strict,
      ),
      { minItems: 1 },
    ),
  },
  {
    ...strict,
    $schema: DRAFT,
    $id: id('rules'),
    title: 'Witness tool-loop rules',
    description:
      'Temporal rules over the sequence of tool calls and observed states: propositions as CEL predicates, rules in LTL, checked before each call (refusal) and monitored after it (escalation).',
  },
);
export type RulesDocument = Static<typeof RulesDocument>;
