"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { Dialog } from "@/components/dialog";
import { useToast } from "@/components/toast";
import { buttonClass, Field, FormError, inputClass, secondaryButtonClass } from "@/components/ui";
import { runAction as run } from "@/components/run-action";
import { createEndpointAction, updateEndpointAction, type EndpointInput } from "./actions";
import { LocalTestingHint } from "./local-testing-hint";
import { ClickScopeFields, cleanScope } from "./click-scope-fields";

const CLICKED = "link.clicked";

/** "all" (every type but link.clicked) or a list, with link.clicked added when `clicked`. */
function eventsOf(all: boolean, selected: string[], clicked: boolean): EndpointInput["events"] {
  if (all) return clicked ? ["all", CLICKED] : "all";
  return clicked ? [...selected, CLICKED] : selected;
}

/** The input as sent: the click scope only with link.clicked, its names cleaned. */
function submitted(v: EndpointInput): EndpointInput {
  const clicked = v.events !== "all" && v.events.includes(CLICKED);
  return { ...v, clickScope: clicked ? (cleanScope(v.clickScope) ?? {}) : undefined };
}

function EndpointFields({
  value,
  onChange,
  eventTypes,
  urlHint,
  disabled,
}: {
  value: EndpointInput;
  onChange: (v: EndpointInput) => void;
  eventTypes: string[];
  /** what this instance's guard accepts (lib/webhooks endpointUrlHint) */
  urlHint: string;
  disabled?: boolean;
}) {
  const id = useId();
  const all = value.events === "all" || value.events.includes("all");
  const clicked = value.events !== "all" && value.events.includes(CLICKED);
  const selected = all ? [] : (value.events as string[]).filter((t) => t !== CLICKED);
  const toggle = (t: string) =>
    onChange({ ...value, events: eventsOf(false, selected.includes(t) ? selected.filter((x) => x !== t) : [...selected, t], clicked) });
  return (
    <div className="space-y-4">
      <Field label="Endpoint URL" htmlFor={`${id}-url`} hint={urlHint}>
        <input
          id={`${id}-url`}
          type="url"
          value={value.url}
          onChange={(e) => onChange({ ...value, url: e.target.value })}
          placeholder="https://example.com/webhooks/linkhop"
          autoComplete="off"
          spellCheck={false}
          className={inputClass}
          disabled={disabled}
          required
        />
      </Field>
      <Field label="Description (optional)" htmlFor={`${id}-description`}>
        <input
          id={`${id}-description`}
          value={value.description}
          onChange={(e) => onChange({ ...value, description: e.target.value })}
          maxLength={200}
          className={inputClass}
          disabled={disabled}
        />
      </Field>
      <fieldset className="space-y-2" disabled={disabled}>
        <legend className="text-sm font-medium text-slate-700">Events</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={`${id}-scope`}
            checked={all}
            onChange={() => onChange({ ...value, events: eventsOf(true, [], clicked) })}
          />
          All events, including types added later (except link.clicked)
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={`${id}-scope`}
            checked={!all}
            onChange={() => onChange({ ...value, events: eventsOf(false, selected, clicked) })}
          />
          Only the selected events
        </label>
        {!all && (
          <div className="ml-6 grid gap-1 sm:grid-cols-2">
            {eventTypes
              .filter((t) => t !== CLICKED)
              .map((t) => (
                <label key={t} className="flex items-center gap-2 font-mono text-xs">
                  <input type="checkbox" checked={selected.includes(t)} onChange={() => toggle(t)} />
                  {t}
                </label>
              ))}
          </div>
        )}
        <ClickScopeFields
          clicked={clicked}
          scope={value.clickScope}
          onChange={(c, scope) => onChange({ ...value, events: eventsOf(all, selected, c), clickScope: scope })}
        />
      </fieldset>
    </div>
  );
}

export function AddEndpointButton({
  slug,
  eventTypes,
  urlHint,
  disabled,
  disabledReason,
}: {
  slug: string;
  eventTypes: string[];
  urlHint: string;
  disabled: boolean;
  disabledReason?: string;
}) {
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState<EndpointInput>({ url: "", description: "", events: "all" });
  const router = useRouter();
  const toast = useToast();
  const add = useMutation({
    mutationFn: (v: EndpointInput) => run(createEndpointAction(slug, v)),
    onSuccess: (ep) => {
      toast("Endpoint added");
      setOpen(false);
      setValue({ url: "", description: "", events: "all" });
      router.push(`/w/${slug}/developers/${ep.id}`);
    },
  });
  return (
    <>
      <button type="button" className={buttonClass} disabled={disabled} title={disabledReason} onClick={() => setOpen(true)}>
        Add endpoint
      </button>
      <Dialog
        open={open}
        onClose={() => {
          setOpen(false);
          add.reset();
        }}
        title="Add a webhook endpoint"
        description="Linkhop will POST signed JSON to this URL when the selected events happen."
        wide
      >
        <form
          noValidate
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate(submitted(value));
          }}
        >
          <EndpointFields value={value} onChange={setValue} eventTypes={eventTypes} urlHint={urlHint} />
          <FormError message={add.error?.message} />
          <LocalTestingHint url={value.url} error={add.error?.message} />
          <div className="flex justify-end gap-2">
            <button type="button" className={secondaryButtonClass} onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button className={buttonClass} disabled={add.isPending}>
              {add.isPending ? "Checking the URL…" : "Add endpoint"}
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

export function EditEndpointForm({
  slug,
  id,
  initial,
  eventTypes,
  urlHint,
}: {
  slug: string;
  id: number;
  initial: EndpointInput;
  eventTypes: string[];
  urlHint: string;
}) {
  const [value, setValue] = useState<EndpointInput>(initial);
  const router = useRouter();
  const toast = useToast();
  const save = useMutation({
    mutationFn: (v: EndpointInput) => run(updateEndpointAction(slug, { id, input: v })),
    onSuccess: () => {
      toast("Endpoint saved");
      router.refresh();
    },
  });
  return (
    <form
      noValidate
      className="space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(submitted(value));
      }}
    >
      <EndpointFields value={value} onChange={setValue} eventTypes={eventTypes} urlHint={urlHint} />
      <FormError message={save.error?.message} />
      <LocalTestingHint url={value.url} error={save.error?.message} />
      <button className={buttonClass} disabled={save.isPending}>
        {save.isPending ? "Saving…" : "Save changes"}
      </button>
    </form>
  );
}
