// The part of the `oidc-provider` package (a test dependency that ships no types) that
// tests/support/oidc-provider.ts uses. https://github.com/panva/node-oidc-provider/blob/main/docs/README.md
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  type InteractionResults = {
    login?: { accountId: string };
    consent?: { grantId: string };
  };

  class Grant {
    constructor(properties: { accountId: string; clientId: string });
    static find(id: string): Promise<Grant | undefined>;
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  type Interaction = {
    uid: string;
    prompt: { name: string };
    params: Record<string, unknown>;
    session?: { accountId: string };
    grantId?: string;
  };

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly Grant: typeof Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: "server_error", listener: (ctx: unknown, error: Error) => void): this;
  }
}
