"use client";
import { createContext, useCallback, useContext, useState } from "react";

/** warning: it mostly worked, and the text says what did not */
type Toast = { id: number; text: string; kind: "success" | "warning" | "error" };
const ToastContext = createContext<(text: string, kind?: Toast["kind"]) => void>(() => {});

const TONE: Record<Toast["kind"], string> = {
  success: "bg-slate-900 text-white",
  warning: "bg-amber-100 text-amber-950 ring-1 ring-amber-400",
  error: "bg-red-700 text-white",
};

export function useToast() {
  return useContext(ToastContext);
}

export function Toaster({ children }: { children: React.ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const push = useCallback((text: string, kind: Toast["kind"] = "success") => {
    const id = Date.now() + Math.random();
    setToasts((t) => [...t, { id, text, kind }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), 4000);
  }, []);
  return (
    <ToastContext.Provider value={push}>
      {children}
      <div aria-live="polite" className="pointer-events-none fixed bottom-4 right-4 z-50 flex flex-col gap-2">
        {toasts.map((t) => (
          <div
            key={t.id}
            role="status"
            data-kind={t.kind}
            className={`pointer-events-auto rounded-md px-4 py-2 text-sm shadow-lg ${TONE[t.kind]}`}
          >
            {t.text}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
