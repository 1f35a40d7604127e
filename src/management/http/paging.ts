/**
 * Spring `Pageable` paging of the management API (managementportal.md §1): query `page` (0-based),
 * `size`, `sort=prop,asc|desc` (repeatable); answers carry `X-Total-Count` and a `Link` header
 * with `next`, `prev`, `last` and `first`. Sizes up to 2147483647 are accepted (the
 * managementportal-client asks for that) and clamped to 2000, as Spring Data does.
 */
import { Type, type Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fieldError } from './validation.js';

export const MAX_PAGE_SIZE = 2000;

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: '0-based page number' })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: `Page size (at most ${MAX_PAGE_SIZE} are returned)` })),
  sort: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 10, description: '`property,asc|desc`, repeatable' })),
});
export type PageQueryT = Static<typeof PageQuery>;

export interface SortOrder<P extends string = string> {
  property: P;
  direction: 'asc' | 'desc';
}

export interface Page<P extends string = string> {
  page: number;
  size: number;
  offset: number;
  sort: SortOrder<P>[];
}

/**
 * Reads `page`, `size` and `sort`; `sortable` lists the properties a list may be sorted by (an
 * unknown one is 400 with a field error). `defaultSize` is the list's size when none is asked.
 */
export function pageOf<P extends string>(query: PageQueryT, sortable: readonly P[], defaultSize = MAX_PAGE_SIZE): Page<P> {
  const page = query.page ?? 0;
  const size = Math.min(query.size ?? defaultSize, MAX_PAGE_SIZE);
  const sort: SortOrder<P>[] = [];
  for (const spec of query.sort ?? []) {
    const [property = '', direction = 'asc', ...rest] = spec.split(',').map((s) => s.trim());
    const dir = direction.toLowerCase();
    if (!sortable.includes(property as P) || (dir !== 'asc' && dir !== 'desc') || rest.length > 0) {
      throw fieldError('pageable', 'sort', 'Pattern', `unknown sort "${spec}"; sortable: ${sortable.join(', ')}`);
    }
    sort.push({ property: property as P, direction: dir });
  }
  return { page, size, offset: page * size, sort };
}

/** `X-Total-Count` and the JHipster `Link` header for one page of `total` items. */
export function setPageHeaders(reply: FastifyReply, request: FastifyRequest, page: { page: number; size: number }, total: number): void {
  const path = request.url.split('?')[0];
  const link = (n: number, rel: string) => `<${path}?page=${n}&size=${page.size}>; rel="${rel}"`;
  const last = Math.max(0, Math.ceil(total / page.size) - 1);
  const links: string[] = [];
  if (page.page < last) links.push(link(page.page + 1, 'next'));
  if (page.page > 0) links.push(link(page.page - 1, 'prev'));
  links.push(link(last, 'last'), link(0, 'first'));
  reply.header('x-total-count', String(total)).header('link', links.join(','));
}
