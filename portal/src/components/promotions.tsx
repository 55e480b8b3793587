import Link from 'next/link';
import { when } from '../lib/format';

/* What the tournaments and prize drops lists show alike: a promotion's name and id, its window. */

/** The name linking to the promotion's page, its id under it. */
export function PromoTitle({ href, name, id }: { href: string; name: string; id: string }) {
  return (
    <>
      <Link href={href}>{name}</Link>
      <br />
      <span className="mono hint">{id}</span>
    </>
  );
}

/** The window, start to end (UTC). */
export function PromoWindow({ starts, ends }: { starts: string; ends: string }) {
  return (
    <>
      {when(starts)} to {when(ends)}
    </>
  );
}
