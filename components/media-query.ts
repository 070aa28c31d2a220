"use client";
import { useCallback, useSyncExternalStore } from "react";

/** Tailwind's `md` breakpoint (48rem), where the app's desktop layouts start. */
export const WIDE_SCREEN = "(min-width: 48rem)";

/**
 * Whether the media query matches, kept current as the window changes; null while the server's
 * HTML is hydrated (the server cannot know the screen, so it renders every layout and CSS shows
 * one). A client render (an in-app navigation) knows it at once, so a component can render the one
 * layout that is shown instead of both.
 */
export function useMediaQuery(query: string): boolean | null {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", onChange);
      return () => list.removeEventListener("change", onChange);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(query).matches,
    () => null,
  );
}
