// GTIN-8, -12 (UPC), -13 (EAN) and -14 are one number space: left-padded with zeros to 14 digits
// they compare equal. The last digit is a mod-10 check digit (weights 3,1,3,… from the right).

/** The 14-digit form, or null when the input is not a GTIN with a valid check digit. */
export function normaliseGtin(input: string): string | null {
  const digits = input.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(digits) || ![8, 12, 13, 14].includes(digits.length)) return null;
  const gtin = digits.padStart(14, '0');
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(gtin[i]) * (i % 2 === 0 ? 3 : 1);
  const check = (10 - (sum % 10)) % 10;
  return check === Number(gtin[13]) ? gtin : null;
}
