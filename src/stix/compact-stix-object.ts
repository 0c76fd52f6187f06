// Drops absent values from a STIX object literal while keeping the literal's key order.

/**
 * A copy of `fields` without the properties that are undefined, null or empty lists: STIX 2.1
 * forbids null values and empty lists (§3.2 and the list type, §2.12) and an absent optional
 * property is simply left out. Insertion order is kept, so a mapper that writes its literal in a
 * fixed order gives byte-identical JSON for the same input.
 */
export function compactStixObject<T extends object>(fields: T): T {
  const kept: Record<string, unknown> = {};
  const source = fields as Record<string, unknown>;
  // A plain loop over own keys: every exported object passes through here.
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    const value = source[key];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    kept[key] = value;
  }
  return kept as T;
}

/** The text, or undefined when it is null or only whitespace (an empty description says nothing). */
export function optionalText(text: string | null | undefined): string | undefined {
  return text === null || text === undefined || text.trim() === '' ? undefined : text;
}
