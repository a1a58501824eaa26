// The contract test's response checks (server/contract.ts checkResponse: one ajv instance over
// the whole document, compiled per operation and status on first use) must judge a body as
// openapi-backend's validateResponse does: every documented status of every operation, with
// bodies shaped by the schema and bodies that break it.
import t from 'tap';
import { OpenAPIValidator } from 'openapi-backend';
import { operations } from '../../generated/operations.js';
import { Contract } from '../../server/contract.js';
import { schemaSample } from '../helpers/schema-sample.js';

const contract = await Contract.load(undefined, { compile: 'on-first-use' });
const spec = contract.document as Record<string, any>;
// openapi-backend's own validator over the same dereferenced document, as the contract test used before
const reference = (contract as unknown as { backend: { validator: OpenAPIValidator } }).backend.validator;

const sample = (schema: Record<string, any> | undefined, wrong = false) => schemaSample(contract, schema, wrong);

let compared = 0;
let failing = 0;
const disagreements: string[] = [];
for (const op of operations) {
  const responses = spec.paths[op.path][op.method.toLowerCase()].responses as Record<string, any>;
  for (const code of Object.keys(responses)) {
    const status = code === 'default' ? 500 : Number(code.replace(/XX$/, '00'));
    const schema = contract.resolve(responses[code])?.content?.['application/json']?.schema;
    // a file or a document (`image/*`, `text/markdown`) is not JSON: the harness checks only JSON answers
    if (!schema) continue;
    const bodies = [sample(schema), sample(schema, true), {}, null, [], 'text', { success: true, message: 'x', data: null }];
    for (const body of bodies) {
      const ours = contract.checkResponse(op.operationId, status, body);
      const theirs = reference.validateResponse(body, op.operationId, status).errors ?? [];
      compared++;
      if (ours.length > 0) failing++;
      if ((ours.length === 0) !== (theirs.length === 0)) disagreements.push(`${op.operationId} ${status} ${JSON.stringify(body).slice(0, 120)}: ours ${ours.length}, openapi-backend ${theirs.length}`);
    }
  }
}

t.same(disagreements, [], `${compared} bodies judged alike`);
t.ok(failing > compared / 3 && failing < compared, `both valid and invalid bodies were among them (${failing} of ${compared} refused)`);
t.ok(contract.checkResponse('getCurrentUser', 200, { success: true, message: 'x' }).some((e) => e.includes("'data'")), 'a missing field is named');
t.same(contract.checkResponse('getCurrentUser', 418, { success: false, message: 'No.' }), [], 'an undocumented status is held to `default`');
t.not(contract.checkResponse('getCurrentUser', 418, { success: true }).length, 0, 'and refused when it breaks it');
