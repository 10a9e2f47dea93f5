/**
 * Sets an own, enumerable data property, whatever the key: `__proto__` included. Plain assignment
 * (`obj[key] = v`) would call the `__proto__` setter instead; data from a file or a model must never
 * reach a prototype.
 */
export function setOwn(obj: object, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
