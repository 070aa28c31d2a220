"use client";
import { useRoutingSetter, RoutingSection, type RoutingSectionProps } from "./routing-section";

/** forwardQuery and forwardPath: two checkboxes, one line each on what they do. */
export function LinkForwardingFields(props: RoutingSectionProps) {
  const { v, id, err, ctx, upgrade } = props;
  const setRouting = useRoutingSetter(props);
  const error = err("forwardQuery") ?? err("forwardPath");
  return (
    <RoutingSection
      title="Forwarding"
      about="What the short link passes on to the destination."
      error={error}
      errorId={`${id("forwardQuery")}-error`}
      testId="routing-forwarding"
    >
      <label className="flex items-start gap-2 text-sm">
        <input
          type="checkbox"
          checked={v.routing.forwardQuery}
          onChange={(e) => setRouting("forwardQuery", e.target.checked)}
          className="mt-0.5 h-4 w-4 rounded border-slate-300"
        />
        <span>
          <span className="font-medium">Forward query parameters</span>{" "}
          <span className="text-slate-500">(a visit to /code?ref=mail reaches the destination with ref=mail added)</span>
        </span>
      </label>
      <label className="flex items-start gap-2 text-sm">
        <input
          type="checkbox"
          checked={v.routing.forwardPath}
          disabled={!ctx.features.redirectRules && !v.routing.forwardPath}
          onChange={(e) => setRouting("forwardPath", e.target.checked)}
          className="mt-0.5 h-4 w-4 rounded border-slate-300"
        />
        <span>
          <span className="font-medium">Forward the path</span>{" "}
          <span className="text-slate-500">(a visit to /code/docs/start goes to the destination with /docs/start joined to its path)</span>
        </span>
      </label>
      {!ctx.features.redirectRules && <p className="text-xs">{upgrade("Forwarding the path is not in your plan.")}</p>}
    </RoutingSection>
  );
}
