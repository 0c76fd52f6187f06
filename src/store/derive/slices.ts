// A list cut into slices, for statements that name each slice's ids in one `in (...)` list or write
// its rows in one multi-row statement.

/** Ids per `in (...)` list, and rows per multi-row statement: well under either dialect's bound on parameters. */
export const SLICE = 500;

export function slices<T>(list: readonly T[], size = SLICE): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
