// Word lists the demo generators draw from: invented hosting companies, registrars, name syllables.

/** Syllables for invented domain names; short so that names stay readable. */
export const SYLLABLES = [
  'ka', 'ro', 'vin', 'tel', 'mar', 'sol', 'dex', 'lu', 'pra', 'zen', 'qui', 'bor', 'na', 'fi', 'gor',
  'tas', 'mo', 'rex', 'shi', 'van', 'el', 'tri', 'os', 'cap', 'lio', 'der', 'mu', 'xa', 'ny', 'pel',
] as const;

/** Words that phishing and malware domains borrow to look trustworthy. */
export const LURE_WORDS = [
  'secure', 'login', 'verify', 'account', 'update', 'support', 'billing', 'cloud', 'docs', 'mail',
  'portal', 'auth', 'cdn', 'files', 'track', 'parcel', 'invoice', 'wallet', 'sync', 'office',
] as const;

export const TLDS = [
  'com', 'net', 'org', 'info', 'top', 'xyz', 'online', 'site', 'shop', 'club', 'biz', 'io', 'cc',
  'pw', 'ru', 'su', 'live', 'icu', 'buzz', 'store',
] as const;

export const COUNTRIES = [
  'US', 'NL', 'DE', 'RU', 'CN', 'FR', 'GB', 'SG', 'HK', 'UA', 'BR', 'IN', 'VN', 'RO', 'BG', 'SE',
  'CA', 'JP', 'KR', 'TR', 'PL', 'MD', 'SC', 'PA',
] as const;

/** Invented autonomous systems: [asn, organisation]. Names are made up on purpose. */
export const AUTONOMOUS_SYSTEMS: readonly (readonly [number, string])[] = [
  [64720, 'Nordvale Hosting B.V.'],
  [207812, 'Bluekite Cloud Ltd'],
  [398114, 'Ironbark Datacenters LLC'],
  [212477, 'Ostrava Net s.r.o.'],
  [49133, 'Kaleido Telecom JSC'],
  [58821, 'Harbourline Broadband'],
  [139244, 'Sunpeak Internet Co., Ltd.'],
  [206601, 'Velvet Servers (Seychelles) Ltd'],
  [61377, 'Tindra Mobile AB'],
  [30871, 'Granite Peak Communications'],
  [44917, 'Redmoor VPS SRL'],
  [135611, 'Lotus Bay Networks Pte. Ltd.'],
  [264518, 'Rio Claro Telecom Ltda'],
  [47286, 'Stormhill Hosting Limited'],
] as const;

export const REGISTRARS = [
  'Namewell Registrar Inc.', 'Pinecone Domains LLC', 'Regiweb OÜ', 'Dotmarket Ltd.',
  'Cheapname Registrar SA', 'Harbor Names Corp.',
] as const;

/** Services seen on an indicator: a port, the protocol spoken on it, and typical software. */
export const SERVICES: readonly { port: string; protocol: string; technology: readonly string[] }[] = [
  { port: '443', protocol: 'https', technology: ['nginx', 'Apache httpd', 'Caddy', 'LiteSpeed'] },
  { port: '80', protocol: 'http', technology: ['nginx', 'Apache httpd', 'Microsoft IIS', 'OpenResty'] },
  { port: '8080', protocol: 'http', technology: ['Jetty', 'Apache Tomcat', 'nginx'] },
  { port: '22', protocol: 'ssh', technology: ['OpenSSH', 'Dropbear'] },
  { port: '23', protocol: 'telnet', technology: ['BusyBox telnetd'] },
  { port: '25', protocol: 'smtp', technology: ['Postfix', 'Exim'] },
  { port: '3389', protocol: 'rdp', technology: ['Microsoft Terminal Services'] },
  { port: '4444', protocol: 'tcp', technology: ['Hollowpoint team server'] },
  { port: '6667', protocol: 'irc', technology: ['UnrealIRCd'] },
  { port: '53', protocol: 'dns', technology: ['BIND', 'dnsmasq'] },
  { port: '3333', protocol: 'stratum', technology: ['xmrig-proxy'] },
];

export const IP_HOST_TYPES = ['vps', 'dedicated', 'residential', 'cloud', 'bulletproof', 'tor-exit', 'mobile'] as const;
export const DOMAIN_HOST_TYPES = ['shared-hosting', 'parked', 'fast-flux', 'dga', 'dynamic-dns', 'cdn-fronted'] as const;

export const CITIES_BY_COUNTRY: Readonly<Record<string, readonly string[]>> = {
  US: ['Ashburn', 'Dallas', 'Los Angeles'],
  NL: ['Amsterdam', 'Rotterdam'],
  DE: ['Frankfurt am Main', 'Nuremberg'],
  RU: ['Moscow', 'Saint Petersburg'],
  GB: ['London', 'Manchester'],
  SG: ['Singapore'],
  FR: ['Paris', 'Roubaix'],
};

export const URL_PATH_WORDS = [
  'wp-content', 'wp-includes', 'admin', 'login', 'panel', 'gate', 'api', 'download', 'files', 'img',
  'invoice', 'secure', 'update', 'bin', 'cgi-bin', 'static', 'docs', 'track', 'verify', 'tmp',
] as const;

export const URL_FILES = [
  'index.php', 'gate.php', 'login.html', 'update.exe', 'invoice.zip', 'setup.msi', 'doc.js',
  'payload.bin', 'panel.php', 'verify.html', 'x86', 'mips', 'config.bin', 'install.ps1',
] as const;
