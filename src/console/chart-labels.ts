// Chart axis labels that never overlap (docs/interface.md, section 14): each label's width estimated from its characters at the
// axis's font size, and labels kept in their order of importance only while each clears every label kept before it.

/** The axis labels' font size in px, as console.css sets `.chart .axis text`. */
export const AXIS_FONT_PX = 11;
/** The least space between two labels, in px of the chart's own units. */
export const LABEL_GAP_PX = 6;
/** A label's height: the line box of one line of text, a little over the font size. */
export const LABEL_HEIGHT_EM = 1.2;

/** Characters drawn at about a third of an em in the console's sans-serif fonts. */
const NARROW = new Set([' ', '.', ',', ':', ';', '-', "'", '|', '!', 'i', 'l', 'j', 't', 'f', 'r', '(', ')', '/']);
/** Characters wider than a digit in those fonts. */
const WIDE = new Set(['m', 'w', 'M', 'W', '@', '%']);

/**
 * A label's width in px, estimated from above: the console's fonts (system-ui, then Segoe UI,
 * Roboto, Helvetica Neue, Arial, or DejaVu Sans on Debian) draw a digit at 0.55 to 0.64 em, so a
 * digit counts 0.65 em, punctuation and blanks 0.4, capitals 0.75 and the widest letters 0.95.
 * An estimate that is too wide only drops a label that would have fitted; one too narrow would let
 * two touch.
 */
export function labelWidth(text: string, fontPx = AXIS_FONT_PX): number {
  let ems = 0;
  for (const char of text) {
    if (NARROW.has(char)) ems += 0.4;
    else if (WIDE.has(char)) ems += 0.95;
    else if (char >= 'A' && char <= 'Z') ems += 0.75;
    else ems += 0.65;
  }
  return ems * fontPx;
}

/** A label wanted on an axis: where along the axis it belongs, and its extent along the axis (its width, or height). */
export interface WantedLabel {
  at: number;
  size: number;
}

/** A label kept: which of the wanted ones it is, and the extent it takes along the axis, `start` to `start + size`. */
export interface PlacedLabel {
  index: number;
  start: number;
  size: number;
}

/**
 * The labels to draw, from `wanted` in its order of importance: each is centred on its `at`, moved
 * back inside `[min, max]` when it would cross an end, and kept only when at least `gap` clears it
 * from every label kept before it (one wider than the whole axis is never kept). So no two labels
 * overlap, however many are wanted and however close together they belong. Sorted along the axis.
 */
export function thinLabels(wanted: readonly WantedLabel[], bounds: { min: number; max: number }, gap = LABEL_GAP_PX): PlacedLabel[] {
  const kept: PlacedLabel[] = [];
  wanted.forEach(({ at, size }, index) => {
    if (size > bounds.max - bounds.min) return;
    const start = Math.min(Math.max(at - size / 2, bounds.min), bounds.max - size);
    const clear = kept.every((other) => start >= other.start + other.size + gap || start + size + gap <= other.start);
    if (clear) kept.push({ index, start, size });
  });
  return kept.sort((a, b) => a.start - b.start);
}

/**
 * Indices 0 to count - 1 in the order a run axis wants them labelled: the latest run, the first,
 * then the middle of each span between those, then of each half, and so on, so that the labels that
 * fit spread evenly.
 */
export function runLabelOrder(count: number): number[] {
  if (count <= 0) return [];
  if (count === 1) return [0];
  const order = [count - 1, 0];
  let spans: Array<[number, number]> = [[0, count - 1]];
  while (spans.length > 0) {
    const next: Array<[number, number]> = [];
    for (const [from, to] of spans) {
      if (to - from < 2) continue;
      const middle = Math.floor((from + to) / 2);
      order.push(middle);
      next.push([from, middle], [middle, to]);
    }
    spans = next;
  }
  return order;
}
