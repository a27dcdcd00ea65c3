// The newest items of a stream, oldest first, in a ring: adding one and dropping the oldest cost
// the same whatever the count. An array's shift() moved every item left, a thousand of them for
// each exchange the live window took in.

export class RingWindow<T> {
  private readonly slots: (T | undefined)[] = [];
  /** Where the oldest item is. */
  private start = 0;
  private count = 0;

  constructor(private readonly capacity: number) {}

  get length(): number {
    return this.count;
  }

  /** The item `index` places after the oldest (0: the oldest), if there is one. */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.count) return undefined;
    return this.slots[(this.start + index) % this.capacity];
  }

  /** Adds an item as the newest; the oldest goes, and is returned, when the ring is full. */
  push(item: T): T | undefined {
    if (this.count < this.capacity) {
      const slot = (this.start + this.count) % this.capacity;
      if (slot === this.slots.length) this.slots.push(item);
      else this.slots[slot] = item;
      this.count += 1;
      return undefined;
    }
    const oldest = this.slots[this.start];
    this.slots[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
    return oldest;
  }

  /** Drops the oldest item and returns it. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const oldest = this.slots[this.start];
    this.slots[this.start] = undefined;
    this.start = (this.start + 1) % this.capacity;
    this.count -= 1;
    return oldest;
  }

  /** The items, oldest first, as a new array. */
  toArray(): T[] {
    const out: T[] = [];
    for (let index = 0; index < this.count; index += 1) out.push(this.slots[(this.start + index) % this.capacity] as T);
    return out;
  }
}
