import type { Metadata } from "next";
import Link from "next/link";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import { ERROR_TABLE } from "@/lib/api/schemas";
import { config } from "@/lib/config";
import { plans } from "@/lib/plans";

// The API reference, rendered from the OpenAPI document (itself generated from the routes' zod
// schemas), so the page cannot drift from what the API accepts. No scripts, fonts or styles from
// elsewhere: it works offline.
export const metadata: Metadata = { title: "API reference" };
export const dynamic = "force-dynamic";

type Schema = {
  type?: string | string[];
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  description?: string;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  const?: unknown;
  not?: unknown;
  default?: unknown;
};
type Operation = {
  operationId: string;
  summary: string;
  description: string;
  parameters?: { name: string; in: string; required: boolean; description?: string; schema: Schema }[];
  requestBody?: { content: { "application/json": { schema: Schema } } };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
  "x-codeSamples"?: { lang: string; source: string }[];
};

const refName = (ref: string) => ref.split("/").pop()!;

function typeLabel(s: Schema | undefined): string {
  if (!s) return "any";
  if (s.$ref) return refName(s.$ref);
  if (s.not) return "not allowed";
  if (s.const !== undefined) return JSON.stringify(s.const);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map(typeLabel).join(" or ");
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  return (
    types
      .map((t) =>
        t === "array"
          ? `array of ${typeLabel(s.items)}`
          : t === "object" && !s.properties
            ? "object"
            : t === "string" && s.format === "uri"
              ? "URL"
              : t,
      )
      .join(" or ") || "any"
  );
}

function constraints(s: Schema): string {
  const alt = (s.anyOf ?? s.oneOf)?.find((a) => a.type !== "null") ?? s;
  const parts: string[] = [];
  if (alt.minLength !== undefined || alt.maxLength !== undefined)
    parts.push(`${alt.minLength ?? 0} to ${alt.maxLength ?? "any"} characters`);
  if (alt.minimum !== undefined && alt.maximum !== undefined && alt.maximum < 1e15) parts.push(`${alt.minimum} to ${alt.maximum}`);
  else if (alt.minimum !== undefined) parts.push(`at least ${alt.minimum}`);
  if (alt.minItems !== undefined || alt.maxItems !== undefined) parts.push(`${alt.minItems ?? 0} to ${alt.maxItems ?? "any"} items`);
  if (alt.pattern) parts.push(`pattern ${alt.pattern}`);
  if (alt.default !== undefined) parts.push(`default ${JSON.stringify(alt.default)}`);
  return parts.join("; ");
}

function Code({ children }: { children: React.ReactNode }) {
  return <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] text-slate-800">{children}</code>;
}

function Pre({ children }: { children: string }) {
  return (
    <pre tabIndex={0} className="overflow-x-auto rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100">
      {children}
    </pre>
  );
}

function FieldTable({ schema, schemas }: { schema: Schema; schemas: Record<string, Schema> }) {
  const s = schema.$ref ? schemas[refName(schema.$ref)] : schema;
  const props = Object.entries(s?.properties ?? {});
  if (!props.length) return <p className="text-sm text-slate-600">{typeLabel(schema)}</p>;
  return (
    <div tabIndex={0} className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <thead className="text-xs uppercase text-slate-500">
          <tr>
            <th className="py-1 pr-4">Field</th>
            <th className="py-1 pr-4">Type</th>
            <th className="py-1">Notes</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {props.map(([name, p]) => (
            <tr key={name} className="align-top">
              <td className="py-1.5 pr-4">
                <Code>{name}</Code>
                {s.required?.includes(name) && <span className="ml-1 text-xs font-medium text-red-600">required</span>}
              </td>
              <td className="py-1.5 pr-4 text-slate-700">{typeLabel(p)}</td>
              <td className="py-1.5 text-slate-600">{[p.description, constraints(p)].filter(Boolean).join(" ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const METHOD_TONE: Record<string, string> = {
  get: "bg-emerald-100 text-emerald-800",
  post: "bg-blue-100 text-blue-800",
  patch: "bg-amber-100 text-amber-800",
  delete: "bg-red-100 text-red-800",
};

export default function ApiReferencePage() {
  const doc = buildOpenApiDocument() as {
    info: { description: string };
    servers: { url: string }[];
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, Schema> };
  };
  const schemas = doc.components.schemas;
  const cfg = config();
  const base = doc.servers[0].url;
  const operations = Object.entries(doc.paths).flatMap(([p, ops]) => Object.entries(ops).map(([method, op]) => ({ path: p, method, op })));
  return (
    <main id="main" tabIndex={-1} className="mx-auto max-w-5xl space-y-10 px-4 py-10 text-slate-900">
      <header className="space-y-3">
        <p className="text-sm font-semibold text-brand-600">
          <Link href="/">Linkhop</Link> · API reference
        </p>
        <h1 className="text-3xl font-semibold tracking-tight">Linkhop API v1</h1>
        <p className="text-slate-700">
          A JSON API for the links of one workspace. Base address <Code>{base}</Code>. The machine-readable description is{" "}
          <a className="font-medium text-brand-600 underline underline-offset-2 hover:text-brand-700" href="/api/v1/openapi.json">
            /api/v1/openapi.json
          </a>{" "}
          (OpenAPI 3.1).
        </p>
        <nav aria-label="Endpoints" className="flex flex-wrap gap-2 text-sm">
          {operations.map(({ path: p, method, op }) => (
            <a
              key={op.operationId}
              href={`#${op.operationId}`}
              className="rounded-md border border-slate-200 bg-white px-2 py-1 hover:border-brand-500"
            >
              <span className="font-mono text-xs uppercase">{method}</span> {p}
            </a>
          ))}
          <a href="#errors" className="rounded-md border border-slate-200 bg-white px-2 py-1 hover:border-brand-500">
            Errors
          </a>
        </nav>
      </header>

      <section className="space-y-3">
        <h2 className="text-xl font-semibold">Authentication</h2>
        <p className="text-sm text-slate-700">
          Send <Code>Authorization: Bearer lh_…</Code> with every request. Keys are created in the app (workspace Settings, API keys) or
          with <Code>npm run admin -- key:create --slug &lt;workspace&gt; --name &lt;what uses it&gt;</Code>; the key is shown once and
          stored only as a hash. A missing, unknown, revoked or expired key, or an inactive workspace, all answer{" "}
          <Code>401 {'{"error":"unauthorized"}'}</Code>, identical in every case. Requests and answers are JSON (
          <Code>Content-Type: application/json</Code>); unknown fields are refused.
        </p>
      </section>

      <section className="space-y-3">
        <h2 className="text-xl font-semibold">Rate limits and plans</h2>
        <p className="text-sm text-slate-700">
          Each key has its own budget of requests per {cfg.RATE_LIMIT_WINDOW_SECONDS}-second window. The window starts at the key&apos;s
          first request; when it ends the whole budget is back. Every authenticated answer carries <Code>X-RateLimit-Limit</Code> and{" "}
          <Code>X-RateLimit-Remaining</Code>, errors included; a <Code>429</Code> answers <Code>{'{"error":"rate_limit","limit":N}'}</Code>{" "}
          with Remaining 0 and no Retry-After. No rate headers on a 401, on a 403 for ApiAccess, or on a plan without a rate. A bulk create
          counts as one request. Checks run in this order: 401, 403 ApiAccess, 429, 400, 403 feature, 403 quota, 404 / 409.
        </p>
        <div tabIndex={0} className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1 pr-4">Plan</th>
                <th className="py-1 pr-4">Requests / window</th>
                <th className="py-1 pr-4">Live keys</th>
                <th className="py-1 pr-4">Links / month</th>
                <th className="py-1">Features</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {Object.values(plans()).map((p) => (
                <tr key={p.id}>
                  <td className="py-1.5 pr-4 font-medium">{p.name}</td>
                  <td className="py-1.5 pr-4">{p.rateLimit ?? "no limit"}</td>
                  <td className="py-1.5 pr-4">{p.liveKeys}</td>
                  <td className="py-1.5 pr-4">{p.maxLinks.toLocaleString("en")}</td>
                  <td className="py-1.5 text-slate-600">{p.features.join(", ") || "none"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      {operations.map(({ path: p, method, op }) => (
        <section key={op.operationId} id={op.operationId} className="space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
          <div className="flex flex-wrap items-center gap-3">
            <span className={`rounded px-2 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_TONE[method] ?? ""}`}>{method}</span>
            <h2 className="font-mono text-base font-semibold">/api/v1{p}</h2>
            <span className="text-sm text-slate-600">{op.summary}</span>
          </div>
          <p className="text-sm text-slate-700">{op.description}</p>
          {op.parameters && op.parameters.length > 0 && (
            <div className="space-y-1">
              <h3 className="text-sm font-semibold">Parameters</h3>
              <ul className="space-y-1 text-sm">
                {op.parameters.map((prm) => (
                  <li key={prm.name}>
                    <Code>{prm.name}</Code>{" "}
                    <span className="text-slate-500">
                      ({prm.in}
                      {prm.required ? ", required" : ""})
                    </span>{" "}
                    {prm.description} <span className="text-slate-500">{constraints(prm.schema)}</span>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {op.requestBody && (
            <div className="space-y-1">
              <h3 className="text-sm font-semibold">Body: {typeLabel(op.requestBody.content["application/json"].schema)}</h3>
              <FieldTable schema={op.requestBody.content["application/json"].schema} schemas={schemas} />
            </div>
          )}
          <div className="space-y-1">
            <h3 className="text-sm font-semibold">Answers</h3>
            <ul className="space-y-0.5 text-sm">
              {Object.entries(op.responses).map(([status, r]) => (
                <li key={status}>
                  <span className="font-mono font-semibold">{status}</span> {r.description}
                  {r.content && r.content["application/json"] && (
                    <span className="text-slate-500"> · {typeLabel(r.content["application/json"].schema)}</span>
                  )}
                  {r.content && !r.content["application/json"] && (
                    <span className="text-slate-500"> · {Object.keys(r.content).join(", ")}</span>
                  )}
                </li>
              ))}
            </ul>
          </div>
          {op["x-codeSamples"]?.map((c) => (
            <Pre key={c.lang}>{c.source}</Pre>
          ))}
        </section>
      ))}

      <section className="space-y-3">
        <h2 className="text-xl font-semibold">The link object</h2>
        <p className="text-sm text-slate-700">
          Every link answer. Times are unix seconds. Webhook events carry the same object without <Code>clicks</Code> and{" "}
          <Code>hasPassword</Code>. The default short domain is <Code>{cfg.shortDomain}</Code>; pass it as <Code>domain</Code> to name the
          default domain.
        </p>
        <FieldTable schema={{ $ref: "#/components/schemas/Link" }} schemas={schemas} />
      </section>

      <section id="errors" className="space-y-3">
        <h2 className="text-xl font-semibold">Errors</h2>
        <p className="text-sm text-slate-700">
          Branch on <Code>error</Code>; messages may be reworded. A refused request leaves nothing behind (bulk creation reports per row).
        </p>
        <div tabIndex={0} className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1 pr-3">Status</th>
                <th className="py-1 pr-3">error</th>
                <th className="py-1 pr-3">Meaning</th>
                <th className="py-1 pr-3">Extra fields</th>
                <th className="py-1">Retry</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {ERROR_TABLE.map((row) => (
                <tr key={row.error} className="align-top">
                  <td className="py-1.5 pr-3 font-mono">{row.status}</td>
                  <td className="py-1.5 pr-3">
                    <Code>{row.error}</Code>
                  </td>
                  <td className="py-1.5 pr-3 text-slate-700">{row.meaning}</td>
                  <td className="py-1.5 pr-3 text-slate-600">{row.extra}</td>
                  <td className="py-1.5 text-slate-600">{row.retry}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </main>
  );
}
