// The BSI's csaf-validator-lib ships JavaScript with JSDoc types only for its root entry points;
// these are the deep modules the tests import (schemas and the §6.1 mandatory tests).
declare module '@secvisogram/csaf-validator-lib/lib/schemaTests/csaf_2_0_strict/schema.js' {
  const schema: Record<string, unknown>;
  export default schema;
}
declare module '@secvisogram/csaf-validator-lib/schemas/*' {
  const schema: Record<string, unknown>;
  export default schema;
}
declare module '@secvisogram/csaf-validator-lib/mandatoryTests.js' {
  const tests: Record<string, (doc: unknown) => unknown>;
  export = tests;
}
declare module '@secvisogram/csaf-validator-lib/validate.js' {
  export default function validate(
    tests: Array<(doc: unknown) => unknown>,
    doc: unknown,
  ): Promise<{
    isValid: boolean;
    tests: Array<{ name: string; isValid: boolean; errors: Array<{ instancePath: string; message: string }> }>;
  }>;
}
