/** A table or column name as SQL writes it, on either database: in double quotes, doubled inside. */
export const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;
