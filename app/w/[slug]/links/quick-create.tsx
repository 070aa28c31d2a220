"use client";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Dialog } from "@/components/dialog";
import { urlFromPaste } from "@/lib/links/url-input";
import { OPEN_QUICK_CREATE } from "./new-link-button";
import { quickCreateContextAction } from "./quick-create-actions";
import { CreatedRowHighlight } from "./quick-create-highlight";

// Quick create on the Links page: `C` (no modifier, outside a field) or pasting a web address
// outside a field opens its dialog, and so does the page's "New link" (new-link-button.tsx). Only
// the listening is part of the page: the form's code (quick-create-form.tsx) and what it may offer
// (quickCreateContextAction) are loaded once the page is idle, so a navigation to Links renders and
// carries neither; a key pressed before they arrive opens the dialog as soon as they have. The
// page renders this only for members who may create links.

type FormModule = typeof import("./quick-create-form");

/** True when the event happened where typing belongs (a field, or editable content). */
function inField(target: EventTarget | null): boolean {
  return target instanceof Element && !!target.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])');
}

/** Runs `fn` when the browser is idle (after the list has been drawn); a timer where there is no requestIdleCallback. */
function onIdle(fn: () => void): () => void {
  if (typeof window.requestIdleCallback === "function") {
    const id = window.requestIdleCallback(fn, { timeout: 2000 });
    return () => window.cancelIdleCallback(id);
  }
  const id = window.setTimeout(fn, 200);
  return () => window.clearTimeout(id);
}

export function QuickCreate({ slug }: { slug: string }) {
  // `opened` counts openings: each one starts a fresh form
  const [state, setState] = useState<{ open: boolean; opened: number; url: string }>({ open: false, opened: 0, url: "" });
  const [idle, setIdle] = useState(false);
  const [form, setForm] = useState<FormModule | null>(null);

  useEffect(
    () =>
      onIdle(() => {
        setIdle(true);
        void import("./quick-create-form").then(setForm);
      }),
    [],
  );
  // under the list's query key, so a create (which refreshes the list) refreshes the tags offered too
  const context = useQuery({
    queryKey: ["links", slug, "quick-create-context"],
    enabled: idle,
    staleTime: 60_000,
    queryFn: async () => {
      const r = await quickCreateContextAction(slug, {});
      if (!r.ok) throw new Error(r.error);
      return r.data;
    },
  });

  useEffect(() => {
    const blocked = (e: Event) => inField(e.target) || document.querySelector("dialog[open]") !== null;
    // a key before the page is idle starts the loading at once
    const ask = (url: string) => {
      setIdle(true);
      void import("./quick-create-form").then(setForm);
      setState((s) => ({ open: true, opened: s.opened + 1, url }));
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== "c" || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || e.repeat || e.isComposing) return;
      if (e.defaultPrevented || blocked(e)) return;
      e.preventDefault();
      ask("");
    };
    const onPaste = (e: ClipboardEvent) => {
      if (blocked(e)) return;
      const url = urlFromPaste(e.clipboardData?.getData("text/plain") ?? "");
      if (!url) return;
      e.preventDefault();
      ask(url);
    };
    // the page's "New link" button, on a phone the only way in
    const onAsk = () => ask("");
    document.addEventListener("keydown", onKey);
    document.addEventListener("paste", onPaste);
    document.addEventListener(OPEN_QUICK_CREATE, onAsk);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("paste", onPaste);
      document.removeEventListener(OPEN_QUICK_CREATE, onAsk);
    };
  }, []);

  const ctx = context.data;
  const loaded = form !== null && ctx !== undefined;
  const close = () => setState((s) => ({ ...s, open: false }));
  return (
    <>
      <CreatedRowHighlight slug={slug} />
      {/* ready: the dialog opens at once (tests and the benchmark wait for it; "New link" uses it) */}
      {loaded && <span hidden data-quick-create="ready" />}
      <Dialog open={state.open && loaded} onClose={close} title="New link" wide>
        {state.open && loaded && <form.QuickCreateForm key={state.opened} slug={slug} ctx={ctx} initialUrl={state.url} onClose={close} />}
      </Dialog>
    </>
  );
}
