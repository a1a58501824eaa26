// Values made from the contract's schemas, for the tests that hold two validators to the same
// judgement (test/unit/request-validation.test.ts, test/unit/response-checks.test.ts).
import type { Contract } from '../../server/contract.js';

type Schema = Record<string, any>;

/** A value of the schema's shape, or, when `wrong`, of another type. */
export function schemaSample(contract: Contract, schema: Schema | undefined, wrong = false, depth = 0): unknown {
  const resolved = contract.resolve(schema) ?? {};
  if (depth > 6) return null; // recursive schemas (a category's children) end somewhere
  if (resolved.allOf && !wrong) return Object.assign({}, ...resolved.allOf.map((part: Schema) => schemaSample(contract, part, false, depth + 1)));
  if (resolved.oneOf || resolved.anyOf) return schemaSample(contract, (resolved.oneOf ?? resolved.anyOf)[0], wrong, depth + 1);
  if (resolved.enum) return wrong ? 'not-in-enum' : resolved.enum[0];
  switch (resolved.type) {
    case 'integer':
    case 'number':
      return wrong ? 'twelve' : 12;
    case 'boolean':
      return wrong ? 'maybe' : true;
    case 'array':
      return wrong ? 'one' : [schemaSample(contract, resolved.items, false, depth + 1)];
    case 'object':
      return wrong ? 3 : Object.fromEntries(Object.entries(resolved.properties ?? {}).map(([k, v]) => [k, schemaSample(contract, v as Schema, false, depth + 1)]));
    default:
      if (wrong) return 12;
      return resolved.format === 'date' ? '2025-01-31' : resolved.format === 'date-time' ? '2025-01-31T10:00:00.000Z' : 'text';
  }
}
