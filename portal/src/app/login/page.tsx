import type { Metadata } from 'next';

export const metadata: Metadata = { title: 'Log in' };

const MESSAGES: Record<string, string> = {
  invalid: 'Wrong username or password.',
  missing: 'Enter your username and password.',
  unavailable: 'The service is not answering. Try again in a moment.',
};

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const sp = await searchParams;
  const error = typeof sp.error === 'string' ? sp.error : undefined;
  const retry = Number(sp.retry ?? 0);
  const message =
    error === 'locked'
      ? `Too many login attempts. Try again in ${Math.max(1, Math.ceil(retry / 60))} minute${retry > 60 ? 's' : ''}.`
      : error
        ? (MESSAGES[error] ?? MESSAGES.invalid)
        : undefined;
  return (
    <main id="main" className="login">
      <h1>Staff portal</h1>
      <p className="lede">
        Operator and provider staff: log in with the account your provider admin created.
      </p>
      {message ? (
        <p className="notice bad" role="alert" data-testid="login-error">
          {message}
        </p>
      ) : null}
      {sp.expired ? <p className="notice warn">Your session has ended. Log in again.</p> : null}
      {sp.bye ? <p className="notice ok">You are logged out.</p> : null}
      <form method="post" action="/auth/login">
        <div className="field">
          <label htmlFor="username">Username</label>
          <input
            id="username"
            name="username"
            autoComplete="username"
            required
            autoCapitalize="none"
            spellCheck={false}
          />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required />
        </div>
        <button type="submit">Log in</button>
      </form>
    </main>
  );
}
