"use client";
import { useEffect, useId, useRef } from "react";
import { dangerButtonClass, secondaryButtonClass } from "./ui";

// A modal dialog on the native <dialog> element: the browser gives it role=dialog, a focus trap,
// an inert background and Escape to close; we add a labelled title and return focus on close.
export function Dialog({
  open,
  onClose,
  title,
  description,
  children,
  wide,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  description?: React.ReactNode;
  children: React.ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const returnFocus = useRef<Element | null>(null);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) {
      returnFocus.current = document.activeElement;
      el.showModal();
      // Autofocus first, then the first field, then any other control (not the close button).
      const first = [
        "[autofocus]",
        "input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled])",
        "button:not([data-dialog-close])",
      ]
        .map((sel) => el.querySelector<HTMLElement>(sel))
        .find(Boolean);
      first?.focus();
    } else if (!open && el.open) {
      el.close();
    }
  }, [open]);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const handleClose = () => {
      (returnFocus.current as HTMLElement | null)?.focus?.();
      onClose();
    };
    el.addEventListener("close", handleClose);
    return () => el.removeEventListener("close", handleClose);
  }, [onClose]);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-modal="true"
      onClick={(e) => {
        if (e.target === ref.current) ref.current?.close(); // a click on the backdrop
      }}
      className={`m-auto w-[calc(100%-2rem)] ${wide ? "max-w-2xl" : "max-w-md"} rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40`}
    >
      {open && (
        <div className="max-h-[85vh] overflow-y-auto p-5">
          <div className="mb-4 flex items-start justify-between gap-4">
            <div>
              <h2 id={titleId} className="text-lg font-semibold">
                {title}
              </h2>
              {description && <div className="mt-1 text-sm text-slate-600">{description}</div>}
            </div>
            <button
              type="button"
              data-dialog-close
              aria-label="Close"
              onClick={() => ref.current?.close()}
              className="-m-1 rounded p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-800"
            >
              <svg aria-hidden width="18" height="18" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="2">
                <path d="M5 5l10 10M15 5L5 15" />
              </svg>
            </button>
          </div>
          {children}
        </div>
      )}
    </dialog>
  );
}

/** A yes/no dialog for destructive actions. */
export function ConfirmDialog({
  open,
  onClose,
  onConfirm,
  title,
  children,
  confirmLabel,
  pending,
  error,
}: {
  open: boolean;
  onClose: () => void;
  onConfirm: () => void;
  title: string;
  children?: React.ReactNode;
  confirmLabel: string;
  pending?: boolean;
  error?: string | null;
}) {
  return (
    <Dialog open={open} onClose={onClose} title={title}>
      {children && <div className="text-sm text-slate-700">{children}</div>}
      {error && (
        <p role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700">
          {error}
        </p>
      )}
      <div className="mt-5 flex justify-end gap-2">
        <button type="button" className={secondaryButtonClass} onClick={onClose} disabled={pending}>
          Cancel
        </button>
        <button type="button" autoFocus className={dangerButtonClass} onClick={onConfirm} disabled={pending}>
          {pending ? "Working…" : confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
