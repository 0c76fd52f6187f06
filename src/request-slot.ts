// Values a request carries between the parts that serve it, kept on its own objects rather than in WeakMaps (issue 32).

/** Every slot's symbol, in the order declared: the app's response class is born with them all. */
const declared: symbol[] = [];

/**
 * One value a request carries from the part that works it out to the parts that read it (its
 * client, its collection, the headers waiting for its body, ...), typed as a WeakMap would be but
 * kept on the request or response object itself under a private symbol: a WeakMap entry per
 * request costs an allocation and the garbage collector's ephemeron work, a property next to
 * nothing. Declare slots at module level (a slot declared per request would grow every object).
 */
export class RequestSlot<T> {
  private readonly symbol: symbol;

  constructor(name: string) {
    this.symbol = Symbol(name);
    declared.push(this.symbol);
  }

  get(owner: object): T | undefined {
    return (owner as Record<symbol, T | undefined>)[this.symbol];
  }

  set(owner: object, value: T | undefined): void {
    (owner as Record<symbol, T | undefined>)[this.symbol] = value;
  }
}

/**
 * Gives `owner` every slot declared so far, empty: the constructor of the app's response class
 * (http/express-server.ts) calls it, so that the response node builds for each request has its
 * final shape from the start and no property is added to it later. (Slots kept on the request are
 * added as they are set: node's code is mostly done with the request by then.)
 */
export function addEmptySlots(owner: object): void {
  for (const symbol of declared) (owner as Record<symbol, undefined>)[symbol] = undefined;
}
