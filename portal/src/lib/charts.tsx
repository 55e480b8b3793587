import type { ReactNode } from 'react';

/*
 * Charts as server-rendered SVG: no chart library, no client script. Every chart has a title and a
 * description for assistive technology (role="img"), a legend in text, and the same numbers in a
 * table under "Show the numbers", so nothing is said by colour alone.
 */

export const PALETTE = ['#1f5fbf', '#b3541e', '#2e7d32', '#7b1fa2', '#00695c', '#ad1457'];
const INK = '#1b1f24';
const GRID = '#d0d7de';
const MUTED = '#57606a';

/** About `count` round tick values covering [min, max]. */
export function ticks(min: number, max: number, count = 5): number[] {
  if (max === min) max = min + 1;
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => raw <= s) ?? 10 * mag;
  const start = Math.floor(min / step) * step;
  const out: number[] = [];
  for (let v = start; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  if (out[out.length - 1]! < max) out.push(Number((out[out.length - 1]! + step).toPrecision(12)));
  return out;
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
export const axisLabel = (v: number) =>
  Math.abs(v) < 1000 ? String(Number(v.toFixed(2))) : compact.format(v);

function Frame(props: {
  id: string;
  title: string;
  description: string;
  width: number;
  height: number;
  children: ReactNode;
}) {
  return (
    <svg
      className="chart"
      viewBox={`0 0 ${props.width} ${props.height}`}
      role="img"
      aria-labelledby={`${props.id}-t ${props.id}-d`}
      preserveAspectRatio="xMidYMid meet"
    >
      <title id={`${props.id}-t`}>{props.title}</title>
      <desc id={`${props.id}-d`}>{props.description}</desc>
      {props.children}
    </svg>
  );
}

export function Legend({ items }: { items: { name: string; color: string; shape?: 'bar' | 'line' }[] }) {
  return (
    <ul className="legend">
      {items.map((i) => (
        <li key={i.name}>
          <svg width="14" height="14" aria-hidden="true" focusable="false">
            {i.shape === 'line' ? (
              <rect x="6" y="0" width="3" height="14" fill={i.color} />
            ) : (
              <rect width="14" height="14" rx="2" fill={i.color} />
            )}
          </svg>
          {i.name}
        </li>
      ))}
    </ul>
  );
}

export interface BarGroup {
  label: string;
  values: number[];
}

/** Vertical bars grouped per label (e.g. per day: bet and win), values may be negative. */
export function BarChart(props: {
  id: string;
  title: string;
  description: string;
  series: { name: string; color: string }[];
  groups: BarGroup[];
}) {
  const W = 720;
  const H = 260;
  const m = { l: 60, r: 10, t: 12, b: 36 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const all = props.groups.flatMap((g) => g.values);
  const lo = Math.min(0, ...all);
  const hi = Math.max(0, ...all);
  const yt = ticks(lo, hi === lo ? lo + 1 : hi);
  const y0 = yt[0]!;
  const y1 = yt[yt.length - 1]!;
  const y = (v: number) => m.t + ph - ((v - y0) / (y1 - y0)) * ph;
  const gw = pw / Math.max(1, props.groups.length);
  const bw = Math.max(1, (gw * 0.8) / props.series.length);
  const every = Math.max(1, Math.ceil(props.groups.length / 8));
  return (
    <Frame id={props.id} title={props.title} description={props.description} width={W} height={H}>
      {yt.map((t) => (
        <g key={t}>
          <line x1={m.l} x2={W - m.r} y1={y(t)} y2={y(t)} stroke={t === 0 ? INK : GRID} strokeWidth="1" />
          <text x={m.l - 6} y={y(t) + 4} textAnchor="end" fontSize="11" fill={MUTED}>
            {axisLabel(t)}
          </text>
        </g>
      ))}
      {props.groups.map((g, gi) => {
        const gx = m.l + gi * gw + gw * 0.1;
        return (
          <g key={g.label}>
            {g.values.map((v, si) => {
              const top = y(Math.max(0, v));
              const h = Math.max(v === 0 ? 0 : 1, Math.abs(y(v) - y(0)));
              return (
                <rect
                  key={props.series[si]!.name}
                  x={gx + si * bw}
                  y={top}
                  width={bw}
                  height={h}
                  fill={props.series[si]!.color}
                >
                  <title>{`${g.label} · ${props.series[si]!.name}: ${axisLabel(v)}`}</title>
                </rect>
              );
            })}
            {gi % every === 0 ? (
              <text
                x={m.l + gi * gw + gw / 2}
                y={H - m.b + 16}
                textAnchor="middle"
                fontSize="11"
                fill={MUTED}
              >
                {g.label}
              </text>
            ) : null}
          </g>
        );
      })}
    </Frame>
  );
}

export interface RtpRow {
  label: string;
  /** Measured ratio (win / bet), null without bets. */
  measured: number | null;
  /** Stored RTP as a ratio, null when the title has none. */
  stored: number | null;
  rounds: number;
}

/** Measured RTP per title as bars, the stored RTP as a mark on each bar's row. */
export function RtpChart(props: { id: string; title: string; description: string; rows: RtpRow[] }) {
  const W = 720;
  const row = 30;
  const m = { l: 230, r: 70, t: 20, b: 24 };
  const H = m.t + m.b + row * Math.max(1, props.rows.length);
  const pw = W - m.l - m.r;
  const top = Math.min(3, Math.max(1.2, ...props.rows.map((r) => Math.max(r.measured ?? 0, r.stored ?? 0))));
  const xt = ticks(0, top, 4);
  const xmax = xt[xt.length - 1]!;
  const x = (v: number) => m.l + (Math.min(v, xmax) / xmax) * pw;
  return (
    <Frame id={props.id} title={props.title} description={props.description} width={W} height={H}>
      {xt.map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={m.t - 6} y2={H - m.b} stroke={GRID} />
          <text x={x(t)} y={m.t - 8} textAnchor="middle" fontSize="11" fill={MUTED}>
            {`${Math.round(t * 100)}%`}
          </text>
        </g>
      ))}
      {props.rows.map((r, i) => {
        const cy = m.t + i * row + row / 2;
        return (
          <g key={r.label}>
            <text x={m.l - 8} y={cy + 4} textAnchor="end" fontSize="12" fill={INK}>
              {r.label.length > 34 ? `${r.label.slice(0, 33)}…` : r.label}
            </text>
            {r.measured !== null ? (
              <rect x={m.l} y={cy - 8} width={Math.max(1, x(r.measured) - m.l)} height="16" fill={PALETTE[0]}>
                <title>{`${r.label}: measured ${(r.measured * 100).toFixed(2)}% over ${r.rounds} rounds`}</title>
              </rect>
            ) : null}
            {r.stored !== null ? (
              <rect x={x(r.stored) - 1.5} y={cy - 12} width="3" height="24" fill={INK}>
                <title>{`${r.label}: stored RTP ${(r.stored * 100).toFixed(2)}%`}</title>
              </rect>
            ) : null}
            <text x={W - m.r + 6} y={cy + 4} fontSize="11" fill={MUTED}>
              {r.measured === null ? 'no bets' : `${(r.measured * 100).toFixed(1)}%`}
            </text>
          </g>
        );
      })}
    </Frame>
  );
}

export interface Span {
  /** Unique among the spans (a transaction id). */
  id: string;
  label: string;
  start: number;
  end: number | null;
  color: string;
  note: string;
}

/** A timeline of spans (wallet calls): each from its creation to its completion; open ones dashed. */
export function TimelineChart(props: { id: string; title: string; description: string; spans: Span[] }) {
  const W = 720;
  const row = 30;
  const m = { l: 90, r: 150, t: 24, b: 10 };
  const H = m.t + m.b + row * Math.max(1, props.spans.length);
  const pw = W - m.l - m.r;
  const t0 = Math.min(...props.spans.map((s) => s.start));
  const t1 = Math.max(t0 + 1, ...props.spans.map((s) => s.end ?? s.start));
  const x = (t: number) => m.l + ((t - t0) / (t1 - t0)) * pw;
  const fmt = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
  return (
    <Frame id={props.id} title={props.title} description={props.description} width={W} height={H}>
      <text x={m.l} y={14} fontSize="11" fill={MUTED}>
        0
      </text>
      <text x={m.l + pw} y={14} fontSize="11" fill={MUTED} textAnchor="end">
        {fmt(t1 - t0)}
      </text>
      <line x1={m.l} x2={m.l + pw} y1={m.t - 4} y2={m.t - 4} stroke={GRID} />
      {props.spans.map((s, i) => {
        const cy = m.t + i * row + row / 2;
        const x1 = x(s.start);
        const x2 = s.end === null ? m.l + pw : Math.max(x1 + 3, x(s.end));
        return (
          <g key={s.id}>
            <text x={m.l - 8} y={cy + 4} textAnchor="end" fontSize="12" fill={INK}>
              {s.label}
            </text>
            <rect
              x={x1}
              y={cy - 8}
              width={x2 - x1}
              height="16"
              rx="3"
              fill={s.end === null ? 'none' : s.color}
              stroke={s.color}
              strokeWidth="2"
              strokeDasharray={s.end === null ? '5 3' : undefined}
            >
              <title>{`${s.label}: ${s.note}`}</title>
            </rect>
            <text x={W - m.r + 8} y={cy + 4} fontSize="11" fill={MUTED}>
              {s.note}
            </text>
          </g>
        );
      })}
    </Frame>
  );
}

/** A running multiplier over the stages of a round, up to the stage being replayed. */
export function StepChart(props: {
  id: string;
  title: string;
  description: string;
  points: { seq: number; value: number | null }[];
  current: number;
}) {
  const W = 720;
  const H = 200;
  const m = { l: 50, r: 16, t: 14, b: 30 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const vals = props.points.map((p) => p.value ?? 0);
  const yt = ticks(0, Math.max(1, ...vals));
  const ymax = yt[yt.length - 1]!;
  const n = Math.max(1, props.points.length - 1);
  const x = (i: number) => m.l + (i / n) * pw;
  const y = (v: number) => m.t + ph - (v / ymax) * ph;
  // Stages without a multiplier (the bet) are not drawn; x keeps every stage's place.
  const shown = props.points
    .map((p, i) => ({ ...p, i }))
    .filter(
      (p): p is { seq: number; value: number; i: number } => p.seq <= props.current && p.value !== null,
    );
  const path = shown
    .map((p, k) => `${k === 0 ? 'M' : 'L'}${x(p.i).toFixed(1)},${y(p.value).toFixed(1)}`)
    .join(' ');
  return (
    <Frame id={props.id} title={props.title} description={props.description} width={W} height={H}>
      {yt.map((t) => (
        <g key={t}>
          <line x1={m.l} x2={W - m.r} y1={y(t)} y2={y(t)} stroke={GRID} />
          <text x={m.l - 6} y={y(t) + 4} textAnchor="end" fontSize="11" fill={MUTED}>
            {`${axisLabel(t)}×`}
          </text>
        </g>
      ))}
      {props.points.map((p, i) => (
        <text key={p.seq} x={x(i)} y={H - 10} textAnchor="middle" fontSize="11" fill={MUTED}>
          {p.seq}
        </text>
      ))}
      <path d={path} fill="none" stroke={PALETTE[0]} strokeWidth="2.5" />
      {shown.map((p) => (
        <circle
          key={p.seq}
          cx={x(p.i)}
          cy={y(p.value)}
          r={p.seq === props.current ? 6 : 4}
          fill={p.seq === props.current ? PALETTE[1] : PALETTE[0]}
        >
          <title>{`stage ${p.seq}: ${p.value}×`}</title>
        </circle>
      ))}
    </Frame>
  );
}
