// What was worked out of an object (a document read), kept on the object itself under a symbol of
// its own rather than in a WeakMap keyed by it: nearly every exchange brings documents never seen
// before, and adding each to several WeakMaps cost more, in the maps and in the collector's work
// on them, than the readings they kept. An object that cannot take a property (a frozen one) is
// kept in a WeakMap as before. Nothing sees the symbol: JSON, structured clones and reports leave
// symbol-keyed properties out.

export class KeptWith<K extends object, V> {
  private readonly slot: symbol;
  private readonly sealed = new WeakMap<K, V>();

  constructor(name: string) {
    this.slot = Symbol(name);
  }

  get(key: K): V | undefined {
    return (key as Record<symbol, V | undefined>)[this.slot] ?? this.sealed.get(key);
  }

  set(key: K, value: V): void {
    if (Object.isExtensible(key)) (key as Record<symbol, V>)[this.slot] = value;
    else this.sealed.set(key, value);
  }
}
