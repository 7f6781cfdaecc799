// spdx-expression-parse ships no types: it parses an SPDX licence expression or throws.
declare module 'spdx-expression-parse' {
  export default function parse(expression: string): unknown;
}
