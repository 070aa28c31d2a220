"use client";
import type { LinkFormContext } from "@/lib/links/views";
import type { LinkSectionProps } from "./link-values";
import type { RoutingValues } from "./routing-values";

// What the link form's routing sections share: their props, a setter for one routing value, the
// section frame (a title, one line saying what it does, a field error) and the quiet plan line.

export type RoutingSectionProps = LinkSectionProps & { ctx: LinkFormContext; slug: string };

export function useRoutingSetter({ v, set }: Pick<LinkSectionProps, "v" | "set">) {
  return <K extends keyof RoutingValues>(k: K, value: RoutingValues[K]) => set("routing", { ...v.routing, [k]: value });
}

export function RoutingSection({
  title,
  about,
  error,
  errorId,
  children,
  testId,
}: {
  title: string;
  about: React.ReactNode;
  error?: string;
  errorId: string;
  children: React.ReactNode;
  testId: string;
}) {
  return (
    <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm" data-testid={testId} aria-label={title}>
      <div>
        <h2 className="text-sm font-semibold">{title}</h2>
        <p className="text-xs text-slate-500">{about}</p>
      </div>
      {error && (
        <p id={errorId} data-field-error className="text-xs font-medium text-red-700">
          {error}
        </p>
      )}
      {children}
    </section>
  );
}

/** The one line a section shows when the plan lacks its feature (instead of its fields). */
export function PlanLine({ children }: { children: React.ReactNode }) {
  return <p className="text-sm text-slate-600">{children}</p>;
}
