/**
 * A run's events for any number of readers. Each reader sees every event pushed from the moment it
 * starts iterating; `break` (or `return()`) ends that reader alone and drops what it had not read.
 * With no reader, nothing is kept: an un-iterated run holds no text deltas.
 */
export class EventStream<E> implements AsyncIterable<E> {
  readonly #readers = new Set<Reader<E>>();
  #ended = false;

  push(event: E): void {
    for (const r of this.#readers) r.push(event);
  }

  end(): void {
    this.#ended = true;
    for (const r of this.#readers) r.end();
    this.#readers.clear();
  }

  [Symbol.asyncIterator](): AsyncIterator<E> {
    const reader = new Reader<E>(() => this.#readers.delete(reader));
    if (this.#ended) reader.end();
    else this.#readers.add(reader);
    return reader;
  }
}

/** One reader: its unread events, and the `next()` calls waiting for more. */
class Reader<E> implements AsyncIterator<E> {
  readonly #queue: E[] = [];
  readonly #waiting: ((r: IteratorResult<E>) => void)[] = [];
  #done = false;
  readonly #detach: () => void;

  constructor(detach: () => void) {
    this.#detach = detach;
  }

  push(event: E): void {
    const w = this.#waiting.shift();
    if (w) w({ value: event, done: false });
    else this.#queue.push(event);
  }

  end(): void {
    this.#done = true;
    for (const w of this.#waiting.splice(0)) w({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<E>> {
    if (this.#queue.length > 0) return Promise.resolve({ value: this.#queue.shift() as E, done: false });
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  return(): Promise<IteratorResult<E>> {
    this.#queue.length = 0;
    this.#detach();
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }
}
