import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { deliverWebhook } from "@/inngest/functions/deliver-webhook";

// Inngest calls this to run webhook deliveries (only used when Inngest is configured).
export const dynamic = "force-dynamic";
export const { GET, POST, PUT } = serve({ client: inngest, functions: [deliverWebhook] });
