'use client';

/** Opens the browser's print dialog (the page's print stylesheet leaves out the portal's header and sections). */
export function PrintButton({ label = 'Print' }: { label?: string }) {
  return (
    <button type="button" className="secondary no-print" onClick={() => window.print()}>
      {label}
    </button>
  );
}
