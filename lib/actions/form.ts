// A form's own fields for what a server action would otherwise have bound to it (`action.bind(null,
// slug)`). Binding inside a component that calls useActionState breaks the form's answer when it
// is posted without JavaScript: React re-renders the page with the action's result, compares the
// posted action with a freshly bound one, and that comparison waits on a value each render makes
// anew, so the render starts over without end (one request held a CPU core and grew the heap by
// hundreds of megabytes until the client gave up). A hidden field carries the same value and is
// no more trusted than a bound argument: both come back from the client, and every action checks
// what it is given.

/** The text of a form field, "" when absent (the service that receives it refuses what is not valid). */
export function formField(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}
