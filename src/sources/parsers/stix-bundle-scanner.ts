// Cuts a STIX bundle's `objects` array into its elements as the body arrives, so a bundle of hundreds of MB is never held whole.
import { JsonMemberScanner, type ElementPlace, type JsonProblem, type MemberRead, type MemberReader } from '../../text/json-member-scanner.js';
import { FeedFormatError } from './feed-entry.js';

/** An element of the bundle's `objects` array, parsed, with where it is for messages (`objects[12]`). */
export interface StixObjectAt {
  object: unknown;
  position: string;
}

/** What a problem with the bundle's text says (FeedFormatError's reason). */
function reason(problem: JsonProblem): string {
  switch (problem.code) {
    case 'empty':
      return 'not a STIX bundle: the body is empty';
    case 'not-object':
      return 'not a STIX bundle: the body is not a JSON object';
    case 'expected-name':
      return `expected a member name, found "${problem.found}"`;
    case 'bad-name':
      return 'a member name is not a valid JSON string';
    case 'expected-colon':
      return `expected ":" after "${problem.name}"`;
    case 'not-array':
      return `"${problem.name}" is not an array`;
    case 'empty-element':
      return 'an empty element (a stray comma?)';
    case 'expected-element-end':
      return `expected "," or "]" after an element, found "${problem.found}"`;
    case 'expected-member-end':
      return `expected "," or "}" after a member, found "${problem.found}"`;
    case 'trailing-text':
      return 'unexpected text after the end of the bundle';
    case 'truncated':
      return 'the body ends before the bundle does (truncated?)';
    case 'invalid-json':
      return `not valid JSON: ${problem.reason}`;
  }
}

/**
 * A scanner of `{"type": "bundle", "id": ..., "objects": [ ... ]}` fed text chunks in order
 * (JsonMemberScanner: memory holds one object at a time, plus the objects completed within the
 * current chunk). The `type` member is parsed and must be "bundle"; other members (`id`,
 * `spec_version` of STIX 2.0, custom ones) are passed over without being kept. The members may come
 * in any order.
 */
export class StixBundleScanner {
  private readonly members = new BundleMembers();
  private readonly scanner = new JsonMemberScanner(this.members);

  /** The elements of `objects` completed by this chunk, in order. */
  push(chunk: string): StixObjectAt[] {
    return this.scanner.push(chunk);
  }

  /** Called after the last chunk: the bundle must be complete and be a bundle. */
  end(): void {
    this.scanner.end();
    if (this.members.type === undefined) throw new FeedFormatError('document', 'not a STIX bundle: no "type" member');
  }
}

/** The bundle's members as the scanner reads them, and its errors. */
class BundleMembers implements MemberReader<StixObjectAt> {
  type: unknown = undefined;
  private seenObjects = false;

  readAs(name: string): MemberRead {
    if (name === 'type') return 'value';
    if (name !== 'objects') return 'skip';
    if (this.seenObjects) throw new FeedFormatError('document', '"objects" appears twice');
    this.seenObjects = true;
    return 'elements';
  }

  element(_member: string, index: number, object: unknown): StixObjectAt {
    return { object, position: `objects[${index}]` };
  }

  value(_name: string, type: unknown): void {
    this.type = type;
    if (type !== 'bundle') throw new FeedFormatError('document', `not a STIX bundle: "type" is ${JSON.stringify(type)}`);
  }

  fail(problem: JsonProblem, place: ElementPlace | undefined): never {
    throw new FeedFormatError(place === undefined ? 'document' : `objects[${place.index}]`, reason(problem));
  }
}
