'use client';

/** Anything a page could not render (the API not answering, most often): said plainly, with a retry. */
export default function ErrorPage({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main id="main">
      <h1>Something went wrong</h1>
      <p className="notice bad" role="alert">
        The page could not be loaded. The service may not be answering; try again in a moment.
      </p>
      <button type="button" onClick={() => reset()}>
        Try again
      </button>
    </main>
  );
}
