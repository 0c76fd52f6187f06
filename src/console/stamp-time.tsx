// A store stamp (`YYYY-MM-DD HH:MM:SS`, UTC) as the console shows it: said to be UTC in words, machine-readable in `datetime`.
import type { Stamp } from '../domain.js';
import { CONSOLE_PATHS } from './console-deps.js';

/** A count as the console shows it, with thousands separated. */
export const count = (n: number) => n.toLocaleString('en-US');

export function StampTime({ stamp, none = 'never' }: { stamp: Stamp | null; none?: string }) {
  if (stamp === null) return <>{none}</>;
  return <time dateTime={`${stamp.replace(' ', 'T')}Z`}>{`${stamp} UTC`}</time>;
}

/**
 * The first cells of an indicator's row in the console's tables (Explore's rows, a threat's linked
 * indicators): its iid, its value as the row's header linked to its value page, its type and risk,
 * and one stamp.
 */
export function IndicatorCells({ row, stamp }: { row: { iid: number; indicator: string; type: string; risk: string }; stamp: Stamp | null }) {
  return (
    <>
      <td class="number">{row.iid}</td>
      <th scope="row" class="value">
        <a href={`${CONSOLE_PATHS.value}?${new URLSearchParams({ value: row.indicator })}`}>{row.indicator}</a>
      </th>
      <td>{row.type}</td>
      <td>{row.risk}</td>
      <td>
        <StampTime stamp={stamp} />
      </td>
    </>
  );
}
