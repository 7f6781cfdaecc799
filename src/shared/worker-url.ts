/**
 * The URL of a worker module beside `importMetaUrl` (the caller's `import.meta.url`), named
 * without extension: under tsx (the tests) the caller is TypeScript, and so is its worker.
 */
export function workerUrl(importMetaUrl: string, name: string): string {
  const extension = importMetaUrl.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${extension}`, importMetaUrl).href;
}
