import type { FastifyRequest } from 'fastify';

// Long lists (products, cases) are shown a page at a time: rendering a thousand rows costs more
// than the 50 ms a console page may take. `?page=N` picks the page; out of range is the nearest.

export const ROWS_PER_PAGE = 100;

export interface Paged<T> {
  rows: T[];
  total: number;
  /** 1-based position of the first row shown. */
  first: number;
  page: number;
  pages: number;
}

export function pageOf<T>(request: FastifyRequest, all: readonly T[], perPage = ROWS_PER_PAGE): Paged<T> {
  const pages = Math.max(1, Math.ceil(all.length / perPage));
  const page = Math.min(pages, Math.max(1, Math.floor(Number((request.query as { page?: string } | undefined)?.page)) || 1));
  return { rows: all.slice((page - 1) * perPage, page * perPage), total: all.length, first: (page - 1) * perPage + 1, page, pages };
}
