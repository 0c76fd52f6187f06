// The list limits of the devices the exports serve (docs/interface.md section 11), as their vendors document them: what the console offers as `max`.

/** A device's limit on one list, as the Exports page offers it. */
export interface DeviceLimit {
  /** The form's value. */
  id: string;
  /** The device and release, as the operator knows them (the limit is said beside it). */
  name: string;
  /** The most lines the device reads; undefined: none. */
  maxLines: number | undefined;
  /** What the limit counts and what the device does past it. */
  note: string;
}

/**
 * Each limit is the vendor's own figure, named beside it. A device past its limit drops lines
 * without a word to the server (PAN-OS logs it on the firewall; FortiGate truncates), which is why
 * the export chooses with `max` what is kept rather than leave it to the device.
 */
export const DEVICE_LIMITS: readonly DeviceLimit[] = [
  // PAN-OS 7.1 Web Interface Help, Objects > External Dynamic Lists: PA-5000 and PA-7000 Series
  // 150,000 IP addresses in all, other platforms 50,000; 50,000 URLs and 50,000 domains on every
  // platform; entries past the limit are skipped, with a System log.
  {
    id: 'panos-50k',
    name: 'PAN-OS 7.1, most models',
    maxLines: 50_000,
    note: '50,000 IP addresses across all IP lists (and 50,000 URLs, 50,000 domains); entries past it are skipped.',
  },
  {
    id: 'panos-150k',
    name: 'PAN-OS 7.1, PA-5000 and PA-7000 Series',
    maxLines: 150_000,
    note: '150,000 IP addresses across all IP lists (URL and domain lists: 50,000); entries past it are skipped.',
  },
  // Fortinet Community, "Technical Tip: External threat list resource entry limits" (article 378964):
  // before FortiOS 7.4.4, each external resource is limited to 10 MB or 128K entries.
  {
    id: 'fortigate-128k',
    name: 'FortiGate before 7.4.4',
    maxLines: 131_072,
    note: '128K (131,072) entries or 10 MB per threat feed, whichever comes first.',
  },
  // FortiOS 7.4 New Features, "External resource entry limit enhancements 7.4.4": from 7.4.4 the
  // limits hold across all threat feeds of the device; IP address feeds 300,000 on every model
  // range; past the limit the most recently added entries are truncated.
  {
    id: 'fortigate-7.4.4-ip',
    name: 'FortiGate 7.4.4 and later, IP address feeds',
    maxLines: 300_000,
    note: '300,000 IP addresses across all IP address feeds of the device.',
  },
  // pfBlockerNG and Pi-hole document no limit on a list's entries.
  { id: 'none', name: 'pfBlockerNG, Pi-hole', maxLines: undefined, note: 'No limit on a list\u2019s entries.' },
];

export function deviceLimitById(id: string): DeviceLimit | undefined {
  return DEVICE_LIMITS.find((device) => device.id === id);
}
