// Values known at once or later: a request's checks answer without a promise when all they read is in memory (docs/architecture.md, "A TAXII page, out").

/** A value now, or a promise of it: a reader that has it in memory gives it at once. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `next` applied to `value`: at once when the value is known (a throw goes to the caller, as from
 * any function), else when the promise fulfils (a throw rejects the promise returned). A chain of
 * checks written with it costs no promise and no turn of the event loop while every step answers
 * at once, and behaves as the same chain of `await`s otherwise.
 */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
