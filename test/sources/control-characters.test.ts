// Control characters from feeds and import files (docs/interface.md section 11): which ones a name loses, and how; which values are refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasControlCharacter, withoutControlCharacters } from '../../src/sources/control-characters.js';

describe('withoutControlCharacters', () => {
  const cases: [what: string, name: string, stored: string][] = [
    ['a name without any is the same string', 'Emotet Epoch 4', 'Emotet Epoch 4'],
    ['ESC and BEL are removed, the printable rest of a sequence kept', '\x1b]0;owned\x07Zeus\x1b[0m', ']0;ownedZeus[0m'],
    ['NUL and DEL are removed', 'Ze\x00us\x7f', 'Zeus'],
    ['C1 controls (CSI, U+009B; U+0080, U+009F) are removed', '\x80Ze\x9b31mus\x9f', 'Ze31mus'],
    ['a tab becomes a space', 'Qak\tBot', 'Qak Bot'],
    ['a run of tabs and line breaks (CR, LF, VT, FF, NEL) becomes one space', 'Qak\r\n\t\v\f\x85Bot', 'Qak Bot'],
    ['a break around removed controls is still one space', 'Qak\t\x1b\tBot', 'Qak Bot'],
    ['blanks at either end are left for the caller', '\r=1+1 ', ' =1+1 '],
    ['a name of nothing but controls is empty', '\x1b\x07\x9b', ''],
    ['characters past C1 are kept (NBSP, letters, emoji)', '\xa0Zé\u{1f41b}', '\xa0Zé\u{1f41b}'],
  ];
  for (const [what, name, stored] of cases) it(`${what}: ${JSON.stringify(name)} › ${JSON.stringify(stored)}`, () => assert.equal(withoutControlCharacters(name), stored));
});

describe('hasControlCharacter', () => {
  for (const text of ['a\x00', '\t', 'a\nb', '\x1f', '\x7f', '\x80', '\x85', '\x9f']) it(`finds one in ${JSON.stringify(text)}`, () => assert.equal(hasControlCharacter(text), true));
  for (const text of ['', 'evil.example', ' ', '\xa0', 'é']) it(`finds none in ${JSON.stringify(text)}`, () => assert.equal(hasControlCharacter(text), false));
});
