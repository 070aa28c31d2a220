import { oauthProviders } from "@/lib/auth";
import { oidcProviderName } from "@/lib/auth/oidc";
import { secondaryButtonClass } from "@/components/ui";
import { oauthSignInAction } from "./actions";

const LABELS = { github: "Continue with GitHub", google: "Continue with Google" };

export function OAuthButtons({ next }: { next?: string }) {
  const providers = oauthProviders();
  if (providers.length === 0) return null;
  return (
    <div className="mt-6 space-y-2 border-t border-slate-200 pt-6">
      {providers.map((p) => (
        <form key={p} action={oauthSignInAction}>
          <input type="hidden" name="provider" value={p} />
          {next && <input type="hidden" name="next" value={next} />}
          <button type="submit" className={`${secondaryButtonClass} w-full`}>
            {p === "oidc" ? `Continue with ${oidcProviderName()}` : LABELS[p]}
          </button>
        </form>
      ))}
    </div>
  );
}
