// The 27 Member States of the EU (ISO 3166-1 alpha-2, Greece as GR): where an organisation has
// its main establishment, where a product is on the market, whom an Article 14 report concerns.

export const MEMBER_STATES = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
] as const;

/** One of the 27. */
export type MemberState = (typeof MEMBER_STATES)[number];

export function isMemberState(code: string): code is MemberState {
  return (MEMBER_STATES as readonly string[]).includes(code);
}
