/** JSON dates of the management API: ISO-8601 instants and `YYYY-MM-DD` local dates (managementportal.md §1). */

export const isoInstant = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** A request's instant (`ZonedDateTime`/`Instant`): ISO-8601 with an offset, or null when absent. */
export function parseInstant(value: string | null | undefined): Date | null {
  if (value == null) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}
