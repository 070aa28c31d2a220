"use client";
import { useState } from "react";

/** The body indented for reading; the bytes sent are the compact original (shown as is when not JSON). */
function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/**
 * The request body a delivery sends (every attempt and Resend send the same bytes), folded away;
 * drawn only once opened, so a long log stays light and its text is not on the page twice.
 */
export function RequestBody({ body }: { body: string }) {
  const [open, setOpen] = useState(false);
  const bytes = new TextEncoder().encode(body).length;
  return (
    <details className="border-t border-slate-100 px-3 py-2 text-xs" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer text-slate-600">Request body ({bytes} bytes, the same for every attempt)</summary>
      {open && (
        <pre
          tabIndex={0}
          data-testid="request-body"
          className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono text-slate-800"
        >
          {prettyJson(body)}
        </pre>
      )}
    </details>
  );
}
