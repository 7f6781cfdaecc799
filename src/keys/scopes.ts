export const SCOPES = ['incidents:write', 'products:read', 'compliance:read', 'products:write'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
