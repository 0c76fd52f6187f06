// The charts' axis labels never overlap: label widths estimated from their characters, the thinning that keeps only labels
// clear of each other, the order runs are labelled in, and a run chart of many runs and long figures as rendered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from 'preact-render-to-string';
import { AXIS_FONT_PX, LABEL_GAP_PX, LABEL_HEIGHT_EM, labelWidth, runLabelOrder, thinLabels, type PlacedLabel } from '../../src/console/chart-labels.js';
import { RunChart, type RunChartProps } from '../../src/console/run-chart.js';

/** Every pair of placed labels is at least `gap` apart. */
function assertApart(placed: readonly PlacedLabel[], gap: number, what: string): void {
  for (const [i, a] of placed.entries()) {
    for (const b of placed.slice(i + 1)) {
      assert.ok(a.start + a.size + gap <= b.start || b.start + b.size + gap <= a.start, `${what}: ${JSON.stringify(a)} and ${JSON.stringify(b)} overlap`);
    }
  }
}

/** A small deterministic generator, so that a failure can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** `count` runs an hour apart, as the store writes their start. */
const runs = (count: number) => Array.from({ length: count }, (_, i) => new Date(Date.UTC(2026, 2, 2, i)).toISOString().replace('T', ' ').slice(0, 19));

/** The axis texts of a rendered chart: the run labels (with their run) and the value labels. */
function axisTexts(props: RunChartProps) {
  const svg = render(RunChart(props));
  const runLabels = [...svg.matchAll(/<text x="([-\d.]+)" y="[-\d.]+" text-anchor="middle" data-run="(\d+)">([^<]*)<\/text>/g)].map((m) => ({ x: Number(m[1]), run: Number(m[2]), text: m[3]! }));
  const valueLabels = [...svg.matchAll(/<text x="([-\d.]+)" y="([-\d.]+)" dy="0.32em" text-anchor="end">([^<]*)<\/text>/g)].map((m) => ({ right: Number(m[1]), y: Number(m[2]), text: m[3]! }));
  return { runLabels, valueLabels };
}

describe('labelWidth', () => {
  it('counts a run\'s time at least as wide as the widest of the console\'s fonts draws it (DejaVu Sans, about 99 px at 11 px)', () => {
    assert.ok(labelWidth('2026-03-02 11:01') >= 99, String(labelWidth('2026-03-02 11:01')));
    assert.ok(labelWidth('1,000,000') > labelWidth('1,000'));
    assert.equal(labelWidth(''), 0);
    assert.equal(labelWidth('8', 22), 2 * labelWidth('8', 11));
  });
});

describe('thinLabels', () => {
  it('keeps labels in their order of importance, dropping each that would come within the gap of one kept', () => {
    const placed = thinLabels([{ at: 50, size: 20 }, { at: 65, size: 20 }, { at: 80, size: 20 }, { at: 20, size: 20 }], { min: 0, max: 200 }, 6);
    assert.deepEqual(placed, [
      { index: 3, start: 10, size: 20 },
      { index: 0, start: 40, size: 20 },
      { index: 2, start: 70, size: 20 },
    ]);
  });

  it('moves a label that would cross an end back inside, and never keeps one wider than the axis', () => {
    assert.deepEqual(thinLabels([{ at: 5, size: 30 }, { at: 198, size: 30 }], { min: 0, max: 200 }), [
      { index: 0, start: 0, size: 30 },
      { index: 1, start: 170, size: 30 },
    ]);
    assert.deepEqual(thinLabels([{ at: 100, size: 201 }], { min: 0, max: 200 }), []);
  });

  it('never leaves two labels closer than the gap, whatever is wanted', () => {
    const next = random(33);
    for (let trial = 0; trial < 300; trial++) {
      const wanted = Array.from({ length: 1 + Math.floor(next() * 60) }, () => ({ at: next() * 400 - 20, size: 1 + next() * 120 }));
      const placed = thinLabels(wanted, { min: 0, max: 360 }, LABEL_GAP_PX);
      assertApart(placed, LABEL_GAP_PX, `trial ${trial}`);
      for (const label of placed) assert.ok(label.start >= 0 && label.start + label.size <= 360, `trial ${trial}: ${JSON.stringify(label)} inside`);
      if (wanted[0]!.size <= 360) assert.equal(placed.filter((p) => p.index === 0).length, 1, `trial ${trial}: the first wanted is kept`);
    }
  });
});

describe('runLabelOrder', () => {
  it('wants the latest run, then the first, then the middles', () => {
    assert.deepEqual(runLabelOrder(0), []);
    assert.deepEqual(runLabelOrder(1), [0]);
    assert.deepEqual(runLabelOrder(2), [1, 0]);
    assert.deepEqual(runLabelOrder(5), [4, 0, 2, 1, 3]);
  });

  it('names every run once', () => {
    for (let count = 1; count <= 80; count++) assert.deepEqual([...runLabelOrder(count)].sort((a, b) => a - b), [...Array(count).keys()], String(count));
  });
});

describe('RunChart axis labels', () => {
  const chart = (count: number, size: 'small' | 'large', highest = 40): RunChartProps => ({
    id: 'c',
    title: 'Runs',
    runs: runs(count),
    failed: Array.from({ length: count }, (_, i) => i % 7 === 3),
    series: [{ label: 'Values listed', values: Array.from({ length: count }, (_, i) => Math.round((highest * (i + 1)) / count)) }],
    size,
  });

  for (const size of ['small', 'large'] as const) {
    for (const count of [1, 2, 3, 20, 60]) {
      it(`${size}, ${count} run${count === 1 ? '' : 's'}: the latest and the first run labelled, no two run labels within the gap of each other`, () => {
        const { runLabels } = axisTexts(chart(count, size));
        const labelled = runLabels.map((l) => l.run);
        assert.ok(labelled.includes(count - 1) && labelled.includes(0), JSON.stringify(labelled));
        const placed = runLabels.map((l, index) => ({ index, start: l.x - labelWidth(l.text) / 2, size: labelWidth(l.text) }));
        assertApart(placed, LABEL_GAP_PX, `${size}, ${count} runs`);
      });
    }
  }

  it('labels runs between the first and the latest where they fit', () => {
    assert.ok(axisTexts(chart(60, 'large')).runLabels.length >= 4);
  });

  it('keeps long figures inside the chart, their labels clear of each other', () => {
    for (const size of ['small', 'large'] as const) {
      const { valueLabels } = axisTexts(chart(30, size, 12_345_678));
      assert.ok(valueLabels.length >= 2, JSON.stringify(valueLabels));
      for (const label of valueLabels) assert.ok(label.right - labelWidth(label.text) >= 0, `${size}: ${label.text} starts inside the chart`);
      const height = AXIS_FONT_PX * LABEL_HEIGHT_EM;
      assertApart(valueLabels.map((l, index) => ({ index, start: l.y - height / 2, size: height })), 0, size);
    }
  });
});
