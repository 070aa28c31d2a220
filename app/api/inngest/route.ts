import { serve } from "inngest/next";
import { inngestClient } from "@/lib/webhooks/inngest-client";
import { deliverWebhook } from "@/inngest/functions/deliver-webhook";
import { config } from "@/lib/config";

// Inngest calls this to run webhook deliveries. Without Inngest configured (the built-in scheduler
// sends them) there is nothing here: 404, rather than the SDK failing on a missing signing key.
export const dynamic = "force-dynamic";

const inngestHandlers = serve({ client: inngestClient(), functions: [deliverWebhook] });
type Handler = typeof inngestHandlers.GET;

const notConfigured = () => Response.json({ error: "not_found" }, { status: 404 });

function whenConfigured(handler: Handler): Handler {
  return ((...args: Parameters<Handler>) => (config().inngestEnabled ? handler(...args) : notConfigured())) as Handler;
}

export const GET = whenConfigured(inngestHandlers.GET);
export const POST = whenConfigured(inngestHandlers.POST);
export const PUT = whenConfigured(inngestHandlers.PUT);
