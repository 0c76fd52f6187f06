// A store stamp (`YYYY-MM-DD HH:MM:SS`, UTC) as the console shows it: said to be UTC in words, machine-readable in `datetime`.
import type { Stamp } from '../domain.js';

export function StampTime({ stamp, none = 'never' }: { stamp: Stamp | null; none?: string }) {
  if (stamp === null) return <>{none}</>;
  return <time dateTime={`${stamp.replace(' ', 'T')}Z`}>{`${stamp} UTC`}</time>;
}
