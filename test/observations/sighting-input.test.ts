// A sighting's input checked field by field (docs/observations.md, "Recording a sighting"): what is
// taken as given, what gets its default, and the field each refusal names. Pure: the time passed in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ObservationRefused } from '../../src/observations/observation-refused.js';
import { checkSighting, MAX_COUNT, MAX_NOTE, type SightingInput } from '../../src/observations/sighting-input.js';

const NOW = Date.parse('2026-03-02T08:00:00Z');

describe('checkSighting', () => {
  it('a value alone › count 1, no note, seen now; the value trimmed', () => {
    assert.deepEqual(checkSighting({ value: '  evil[.]example ' }, NOW), { target: { value: 'evil[.]example' }, note: null, seenAt: '2026-03-02 08:00:00', count: 1 });
  });
  it('a threat with every field › each as given, the note trimmed', () => {
    assert.deepEqual(checkSighting({ tid: 7, count: MAX_COUNT, note: '  case 42 ', at: '2026-03-01' }, NOW), {
      target: { tid: 7 },
      note: 'case 42',
      seenAt: '2026-03-01 00:00:00',
      count: MAX_COUNT,
    });
  });
  it('a blank note › none', () => assert.equal(checkSighting({ tid: 1, note: '   ' }, NOW).note, null));

  const refusals: [what: string, input: SightingInput, field: string, reason: RegExp][] = [
    ['neither value nor tid', { count: 2 }, 'target', /one of them/],
    ['both value and tid', { value: 'evil.example', tid: 1 }, 'target', /one of them/],
    ['an empty value', { value: '  ' }, 'value', /^is empty/],
    ['a value with a line break', { value: 'evil.example\nother.example' }, 'value', /^must not hold control characters/],
    ['tid 0', { tid: 0 }, 'tid', /^must be a positive whole number$/],
    ['tid 1.5', { tid: 1.5 }, 'tid', /^must be a positive whole number$/],
    ['count 0', { tid: 1, count: 0 }, 'count', /^must be a whole number from 1 to 1000000000$/],
    ['count above the most', { tid: 1, count: MAX_COUNT + 1 }, 'count', /^must be a whole number from 1 to 1000000000$/],
    ['count not a number', { tid: 1, count: Number.NaN }, 'count', /^must be a whole number/],
    ['a note too long', { tid: 1, note: 'x'.repeat(MAX_NOTE + 1) }, 'note', /^is at most 1000 characters$/],
    ['a note with an escape', { tid: 1, note: 'red \u001b[31malert' }, 'note', /^must not hold control characters/],
    ['an `at` that is no time', { tid: 1, at: 'soon' }, 'at', /^must be a timestamp/],
    ['an `at` in the future', { tid: 1, at: '2026-03-03' }, 'at', /^is in the future/],
  ];
  for (const [what, input, field, reason] of refusals) {
    it(`${what} › a 400 naming ${field}`, () => {
      assert.throws(
        () => checkSighting(input, NOW),
        (error: unknown) => error instanceof ObservationRefused && error.status === 400 && error.field === field && reason.test(error.reason),
      );
    });
  }

  it('the message names the field as a body names it', () => {
    assert.throws(() => checkSighting({ tid: 1, count: -1 }, NOW), { message: 'Field "count" must be a whole number from 1 to 1000000000.' });
    assert.throws(() => checkSighting({}, NOW), { message: 'Give exactly one of "value" (an indicator) and "tid" (a threat).' });
  });
});
