import { useState } from 'preact/hooks';
import type { ConsoleConfig } from '../config.ts';
import { idpSignInAvailable, startIdpSignIn } from '../oidc.ts';

/** Sign-in: a pasted token always (an API key, a machine token or a person's access token); the IdP when configured. */
export function SignIn({ config, onToken }: { config: ConsoleConfig; onToken: (token: string) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <main class="sign-in">
      <h1>Secrets console</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const value = token.trim();
          if (!value) return setError('Paste a token first.');
          onToken(value);
        }}
      >
        <label>
          Token
          <input type="password" name="token" autocomplete="off" value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Sign in</button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
      {idpSignInAvailable(config) && (
        <p>
          <button type="button" onClick={() => void startIdpSignIn(config).catch((e: unknown) => setError(String(e)))}>
            Sign in with {new URL(config.issuer!).host}
          </button>
        </p>
      )}
    </main>
  );
}
