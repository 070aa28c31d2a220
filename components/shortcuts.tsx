"use client";
import { useEffect, useRef } from "react";

// Single-key shortcuts of a page (the Links page's `/`, J, K, X, Enter, Esc, ?; the quick-create
// dialog's C can register here too). A key never fires while the user types in a field (input,
// textarea, select, contenteditable) or holds Ctrl, Alt or Meta; Shift only matters where the
// character needs it ("?"). Letters match either case. A handler that returns false lets the key
// through (no preventDefault).

export type ShortcutHandlers = Record<string, (event: KeyboardEvent) => void | boolean>;

/** True when the key press belongs to what the user is typing or to a browser/OS shortcut. */
export function isTypingOrModified(event: KeyboardEvent): boolean {
  if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return true;
  const target = event.target as HTMLElement | null;
  if (!target || !(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = (target as HTMLInputElement).type;
    return !["checkbox", "radio", "button", "submit", "reset"].includes(type);
  }
  return false;
}

/** Listens on the document while mounted; `handlers` is keyed by KeyboardEvent.key (letters in lower case). */
export function useShortcuts(handlers: ShortcutHandlers, enabled = true): void {
  const current = useRef(handlers);
  useEffect(() => {
    current.current = handlers;
  });
  useEffect(() => {
    if (!enabled) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || isTypingOrModified(event)) return;
      // an open modal dialog has the keyboard (Escape closes it natively)
      if (document.querySelector("dialog[open]")) return;
      const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
      const handler = current.current[key];
      if (!handler) return;
      if (handler(event) !== false) event.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [enabled]);
}
