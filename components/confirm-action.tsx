"use client";
import { useMutation } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ConfirmDialog } from "./dialog";

/**
 * A confirmation dialog that runs one action: the confirm button shows progress while it runs,
 * a failure's message appears in the dialog, and closing it forgets that failure. The caller
 * owns `open` (its button that opens the dialog may sit anywhere) and decides in `onDone` what
 * success does: close the dialog, navigate, refresh.
 */
export function ConfirmAction<T>({
  open,
  setOpen,
  action,
  onDone,
  title,
  confirmLabel,
  children,
}: {
  open: boolean;
  setOpen: (open: boolean) => void;
  /** Throws on failure (see runAction), with the message to show. */
  action: () => Promise<T>;
  onDone: (result: T) => void;
  title: string;
  confirmLabel: string;
  children?: ReactNode;
}) {
  const m = useMutation({ mutationFn: action, onSuccess: onDone });
  return (
    <ConfirmDialog
      open={open}
      onClose={() => {
        setOpen(false);
        m.reset();
      }}
      onConfirm={() => m.mutate()}
      title={title}
      confirmLabel={confirmLabel}
      pending={m.isPending}
      error={m.error?.message}
    >
      {children}
    </ConfirmDialog>
  );
}
