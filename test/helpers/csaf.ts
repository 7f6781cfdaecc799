import addFormats from 'ajv-formats';
import { Ajv2020 } from 'ajv/dist/2020.js';
// The official OASIS CSAF 2.0 JSON schema (and the CVSS schemas it references), as shipped by the
// BSI's csaf-validator-lib (MIT); the strict variant also refuses unknown properties.
import csafStrictSchema from '@secvisogram/csaf-validator-lib/lib/schemaTests/csaf_2_0_strict/schema.js';
import cvss20 from '@secvisogram/csaf-validator-lib/schemas/cvss-v2.0.js';
import cvss30 from '@secvisogram/csaf-validator-lib/schemas/cvss-v3.0.js';
import cvss31 from '@secvisogram/csaf-validator-lib/schemas/cvss-v3.1.js';
import * as mandatory from '@secvisogram/csaf-validator-lib/mandatoryTests.js';
import validate from '@secvisogram/csaf-validator-lib/validate.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(cvss20, 'https://www.first.org/cvss/cvss-v2.0.json');
ajv.addSchema(cvss30, 'https://www.first.org/cvss/cvss-v3.0.json');
ajv.addSchema(cvss31, 'https://www.first.org/cvss/cvss-v3.1.json');
const schemaCheck = ajv.compile(csafStrictSchema);

/** Schema errors and failed mandatory tests (CSAF 2.0 §6.1) of a document; empty when valid. */
export async function csafErrors(doc: unknown): Promise<string[]> {
  const errors: string[] = [];
  if (!schemaCheck(doc)) errors.push(...(schemaCheck.errors ?? []).map((e) => `schema ${e.instancePath}: ${e.message}`));
  const result = await validate(Object.values(mandatory) as never, doc);
  for (const test of result.tests) {
    if (!test.isValid)
      errors.push(...test.errors.map((e: { instancePath: string; message: string }) => `${test.name} ${e.instancePath}: ${e.message}`));
  }
  return errors;
}
