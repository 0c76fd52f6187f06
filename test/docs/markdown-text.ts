// What the docs' link test reads in a Markdown file: its prose without code, its code, its links and
// the anchors GitHub gives its headings.

/** A file's lines split into prose and fenced code (``` or ~~~, however indented, as in list items). */
export function splitFences(markdown: string): { prose: string[]; code: string[] } {
  const prose: string[] = [];
  const code: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) fence = marker;
    else if (fence !== undefined && marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    else (fence === undefined ? prose : code).push(line);
  }
  return { prose, code };
}

/** The contents of a prose line's inline code spans. */
export function inlineCode(line: string): string[] {
  return [...line.matchAll(/(`+)(.+?)\1/g)].map((match) => match[2]!);
}

/**
 * The targets of a file's Markdown links and images, outside code: `[text](target)` and
 * `![alt](target "title")`, the title dropped.
 */
export function linkTargets(markdown: string): string[] {
  // A link's text may run onto the next line, so the prose is read as one text, inline code removed.
  const prose = splitFences(markdown).prose.join('\n').replace(/(`+)[^`]*?\1/g, '');
  return [...prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
}

/**
 * GitHub's anchor for a heading's text: its text as rendered (code, emphasis and link marks gone),
 * lower-cased, every character that is no letter, digit, space, `-` or `_` dropped, spaces as `-`.
 */
export function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor of a file's headings (outside code), a repeated one numbered `-1`, `-2`, ... as GitHub does. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of splitFences(markdown).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n += 1) anchor = `${slug}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}
