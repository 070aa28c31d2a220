"use client";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { DEVICES, OPERATING_SYSTEMS } from "@/lib/links/routing-schema";
import { withDefaultScheme } from "@/lib/links/url-input";
import { Field, inputClass, secondaryButtonClass } from "@/components/ui";
import { targetingOf, withSchemes, type Values } from "./link-values";
import { routingFieldsOf } from "./routing-values";
import { testVisitorAction } from "./routing-actions";

// "What would this visitor get": the form's routing as typed (not yet saved) and a made-up visitor,
// answered on the server by the redirect's own decision function (lib/redirects/tester.ts).

const KIND: Record<string, string> = {
  rule: "rule",
  ios: "iOS targeting",
  android: "Android targeting",
  geo: "country targeting",
  variant: "A/B split, drawn as for a new visitor",
  destination: "the destination URL",
};

export function RuleTester({ v, slug, id }: { v: Values; slug: string; id: (name: string) => string }) {
  const [visitor, setVisitor] = useState({ country: "", language: "", device: "desktop", os: "windows", query: "", at: "" });
  const put = (k: keyof typeof visitor, value: string) => setVisitor((prev) => ({ ...prev, [k]: value }));
  const test = useMutation({
    mutationFn: () => {
      const typed = withSchemes(v);
      const at = visitor.at ? Math.floor(new Date(visitor.at).getTime() / 1000) : undefined;
      const routing = routingFieldsOf(typed.routing);
      return testVisitorAction(slug, {
        url: withDefaultScheme(v.url),
        targeting: targetingOf(typed),
        rules: routing.rules ?? [],
        variants: routing.variants,
        visitor: {
          ...visitor,
          device: visitor.device as (typeof DEVICES)[number],
          os: visitor.os as (typeof OPERATING_SYSTEMS)[number],
          at,
        },
      });
    },
  });
  const r = test.data;
  const tid = (name: string) => id(`tester-${name}`);

  return (
    <div className="space-y-3 rounded-md bg-slate-50 p-3" data-testid="rule-tester">
      <h3 className="text-sm font-medium">What would this visitor get?</h3>
      <div className="grid gap-3 sm:grid-cols-3">
        <Field label="Country" htmlFor={tid("country")}>
          <input
            id={tid("country")}
            value={visitor.country}
            maxLength={2}
            placeholder="DE"
            onChange={(e) => put("country", e.target.value.toUpperCase())}
            className={inputClass}
          />
        </Field>
        <Field label="Language" htmlFor={tid("language")}>
          <input
            id={tid("language")}
            value={visitor.language}
            placeholder="de"
            onChange={(e) => put("language", e.target.value)}
            className={inputClass}
          />
        </Field>
        <Field label="Query" htmlFor={tid("query")}>
          <input
            id={tid("query")}
            value={visitor.query}
            placeholder="ref=mail"
            onChange={(e) => put("query", e.target.value)}
            className={inputClass}
          />
        </Field>
        <Field label="Device" htmlFor={tid("device")}>
          <select id={tid("device")} value={visitor.device} onChange={(e) => put("device", e.target.value)} className={inputClass}>
            {DEVICES.map((d) => (
              <option key={d}>{d}</option>
            ))}
          </select>
        </Field>
        <Field label="Operating system" htmlFor={tid("os")}>
          <select id={tid("os")} value={visitor.os} onChange={(e) => put("os", e.target.value)} className={inputClass}>
            {OPERATING_SYSTEMS.map((o) => (
              <option key={o}>{o}</option>
            ))}
          </select>
        </Field>
        <Field label="Time" htmlFor={tid("at")} hint="Empty: now. Your time zone.">
          <input
            id={tid("at")}
            type="datetime-local"
            value={visitor.at}
            onChange={(e) => put("at", e.target.value)}
            className={inputClass}
          />
        </Field>
      </div>
      <button type="button" className={secondaryButtonClass} onClick={() => test.mutate()} disabled={test.isPending}>
        {test.isPending ? "Testing…" : "Test visitor"}
      </button>
      <div role="status" aria-live="polite" data-testid="tester-result" className="text-sm">
        {r?.ok && (
          <p>
            Goes to <span className="break-all font-medium">{r.data.url}</span>{" "}
            <span className="text-slate-500">({r.data.kind === "rule" ? `rule ${(r.data.rule ?? 0) + 1}` : KIND[r.data.kind]})</span>
          </p>
        )}
        {r && !r.ok && (
          <p className="text-red-700">
            {[r.error, ...Object.values(r.fields ?? {})]
              .filter((x, i, all) => x && all.indexOf(x) === i && x !== "Check the highlighted fields.")
              .join(" ")}
          </p>
        )}
        {test.isError && <p className="text-red-700">Could not reach the server. Try again.</p>}
      </div>
    </div>
  );
}
