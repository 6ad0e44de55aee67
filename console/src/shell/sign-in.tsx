import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorBox } from '../ui/components.tsx';
import type { ConsoleConfig } from '../config.ts';
import { idpSignInAvailable, idpSignInError, idpSignInReturning, startIdpSignIn } from '../oidc.ts';
import { useTitle } from '../ui/title.ts';

interface SignInProps {
  config: ConsoleConfig;
  /** Why the API refused the last token (at sign-in or later in the session): its code and message, or null. */
  refusal: unknown;
  /** Tries a token; the page stays when the API refuses it. */
  onToken: (token: string) => Promise<void>;
}

/** Sign-in: a pasted token always (an API key, a machine token or a person's access token); the IdP when configured. */
export function SignIn({ config, refusal, onToken }: SignInProps) {
  useTitle('Sign in');
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  // Back from the identity provider: the app exchanges the code; this page says so, and shows why if it fails.
  const [returning, setReturning] = useState(() => idpSignInAvailable(config) && idpSignInReturning());
  useEffect(() => {
    if (!returning) return;
    void idpSignInError(config).then((message) => {
      setReturning(false);
      if (message) setError(`Sign-in with the identity provider failed: ${message}.`);
    });
  }, []);
  const host = config.issuer ? new URL(config.issuer).host : '';
  return (
    <main class="sign-in">
      <h1>Secrets console</h1>
      {returning && (
        <p class="muted" role="status">
          Signing in with {host}…
        </p>
      )}
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const value = token.trim();
          if (!value) return setError('Paste a token first.');
          // The field is emptied at once: a refused token is kept nowhere, and the next one is pasted into a clean field.
          setError(null);
          setToken('');
          setChecking(true);
          await onToken(value);
          setChecking(false);
          field.current?.focus();
        }}
      >
        <label>
          Token
          <input
            ref={field}
            type="password"
            name="token"
            autocomplete="off"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" disabled={checking}>
          Sign in
        </button>
        {checking && (
          <p class="muted" role="status">
            Checking the token…
          </p>
        )}
        <ErrorBox error={refusal} />
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
      {idpSignInAvailable(config) && (
        <p>
          <button
            type="button"
            disabled={returning}
            onClick={() => {
              setError(null);
              void startIdpSignIn(config).catch((e: unknown) =>
                setError(`Sign-in with ${host} could not start: ${e instanceof Error ? e.message : String(e)}.`),
              );
            }}
          >
            Sign in with {host}
          </button>
        </p>
      )}
    </main>
  );
}
