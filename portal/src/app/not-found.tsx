import Link from 'next/link';

export default function NotFound() {
  return (
    <main id="main">
      <h1>Not found</h1>
      <p>There is no such record, or the address is mistyped.</p>
      <p>
        <Link href="/">Back to the start</Link>
      </p>
    </main>
  );
}
