// Values a request carries between the parts that serve it, kept on its own objects rather than in WeakMaps (docs/architecture.md, "A TAXII page, out").

/** The one property every slot lives under: an array, a place per slot declared. */
const SLOTS = Symbol('request slots');

type Owner = { [SLOTS]?: unknown[] };

/** How many slots are declared: the length of an owner's array. */
let declared = 0;

/** An array with a place for every slot declared, each empty (a packed array: V8 keeps it in its fastest form). */
function emptySlots(): unknown[] {
  const slots = new Array<unknown>(declared);
  for (let i = 0; i < declared; i++) slots[i] = undefined;
  return slots;
}

/**
 * One value a request carries from the part that works it out to the parts that read it (its
 * client, its collection, the headers waiting for its body, ...), typed as a WeakMap would be but
 * kept on the request or response object itself: a WeakMap entry per request costs an allocation
 * and the garbage collector's ephemeron work. Every slot of an object shares one array under one
 * private symbol, so that setting one is a store into that array, whatever the slot, and an object
 * never changes shape for it. Declare slots at module level (a slot declared per request would grow
 * every array).
 */
export class RequestSlot<T> {
  private readonly index: number;

  constructor(readonly name: string) {
    this.index = declared++;
  }

  get(owner: object): T | undefined {
    return (owner as Owner)[SLOTS]?.[this.index] as T | undefined;
  }

  set(owner: object, value: T | undefined): void {
    let slots = (owner as Owner)[SLOTS];
    if (slots === undefined) slots = (owner as Owner)[SLOTS] = emptySlots();
    slots[this.index] = value;
  }
}
