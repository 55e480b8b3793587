'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

/** The operator's sections; the current one is marked for assistive technology (aria-current). */
export function Nav({ operatorId }: { operatorId: string }) {
  const path = usePathname();
  const base = `/o/${encodeURIComponent(operatorId)}`;
  const items: [string, string][] = [
    ['', 'Overview'],
    ['/catalog', 'Catalog'],
    ['/sessions', 'Sessions'],
    ['/rounds', 'Rounds'],
    ['/reconciliation', 'Reconciliation'],
    ['/reports', 'Reports'],
    ['/invoices', 'Invoices'],
    ['/exchange-rates', 'Exchange rates'],
    ['/stuck', 'Stuck settlements'],
    ['/protection', 'Protection'],
    ['/free-rounds', 'Free rounds'],
    ['/jackpots', 'Jackpots'],
    ['/tournaments', 'Tournaments'],
    ['/prize-drops', 'Prize drops'],
    ['/wallet', 'Wallet diagnostics'],
    ['/audit', 'Audit log'],
  ];
  return (
    <nav className="nav" aria-label="Sections">
      <ul>
        {items.map(([suffix, label]) => {
          const href = base + suffix;
          const current = suffix === '' ? path === href : path === href || path.startsWith(`${href}/`);
          return (
            <li key={label}>
              <Link href={href} aria-current={current ? 'page' : undefined} prefetch={false}>
                {label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
