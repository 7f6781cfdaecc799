import type { RiskLevel } from './products.schemas.js';

export type { RiskLevel };

/** From the product's open cases: any notifiable → high, any at all → medium, none → low. */
export function riskLevel(openCases: number, openNotifiableCases: number): RiskLevel {
  if (openNotifiableCases > 0) return 'high';
  if (openCases > 0) return 'medium';
  return 'low';
}
