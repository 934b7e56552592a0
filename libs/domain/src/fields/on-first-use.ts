/**
 * A value made the first time it is asked for, then kept: for a library a module needs only on
 * some paths (`onFirstUse(() => require('re2js'))`). Every file-work thread loads the domain's
 * modules as it starts, on the cores a big upload is using; what a schema may never need is
 * loaded when it is first needed instead (bench/README.md, "A file-work thread's start").
 */
export function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
